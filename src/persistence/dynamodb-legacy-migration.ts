import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { compressJson } from './dynamodb-compressed-json.js';
import { paginate } from './dynamodb-history-pages.js';
import type { FirstWaveConversation } from './first-wave-conversation.js';
import type { JsonObject } from '../domain/index.js';
import { headKey, inboxStoredItem, pageItem, profileItem, type StoredItem } from './dynamodb-source-items.js';
import { CONVERSATION_SORT_KEY, INBOX_PREFIX, inboxSortKey, padNumber, workShard } from './dynamodb-table.js';
import { batchDelete, batchPut, transactWrite, type TableClient } from './dynamodb-writes.js';
import { splitConversation } from './file-store-import.js';

// The first wave stored a source as one `CONVERSATION` item: the whole actor snapshot, history,
// settings, profiles and queued messages included, as one JSON string. The v2 store splits it on
// first load, the same way the SQLite store imports the first-wave file store
// (`splitConversation`; docs/persistence.md, "Migration from the first wave").

/**
 * Writes a first-wave conversation item as a v2 source and deletes it, in one transaction: the
 * head (only if no checkpoint wrote one yet: an `acquire` may have created it, its owner and
 * fence stay), the history pages, the messages the snapshot had queued back in the inbox, and
 * the delete of the old item (only if it still has the version read). False when the head or
 * the old item changed meanwhile: the caller reads again.
 *
 * Before it, and safe to repeat: profiles (a cache) and the deletes of inbox items the snapshot
 * had taken in already (a first-wave save could leave them when it consumed more than its
 * transaction held). Queued messages get keys derived from their event, so writing them twice
 * writes the same items.
 */
export async function migrateLegacyConversation(
  table: TableClient,
  legacy: StoredItem,
  options: {
    readonly fence: number;
    readonly expiresAt: number | undefined;
    readonly pageJsonBytes: number;
    readonly transactionActions: number;
    readonly workIndex: boolean;
  },
): Promise<boolean> {
  const split = splitConversation(conversationFromItem(legacy));
  const { sourceId } = split;
  const { expiresAt } = options;
  await batchPut(
    table.documents,
    table.tableName,
    split.profiles.map((profile) => profileItem(sourceId, profile, { expiresAt })),
  );
  const seen = new Set(split.seenEventIds);
  const takenIn = (await inboxEvents(table, sourceId)).filter(({ eventId }) => seen.has(eventId));
  await batchDelete(
    table.documents,
    table.tableName,
    takenIn.map(({ sk }) => ({ pk: sourceId, sk })),
  );

  const lastSeq = split.history.length;
  const records = split.history.map((entry, index) => ({ seq: index + 1, entry }));
  const pages =
    lastSeq > 0 ? paginate(records, { fromSeq: 1, throughSeq: lastSeq }, options.pageJsonBytes) : [];
  const queued = split.queued.map((item, index) =>
    inboxStoredItem(item, {
      // Before anything that arrived at the same timestamp, and the same on every attempt.
      sortKey: inboxSortKey(item.timestamp, `${padNumber(0, 15)}.${padNumber(index, 6)}`, item.eventId),
      now: split.updatedAt,
      workIndex: options.workIndex,
    }),
  );
  const room = options.transactionActions - 2 - pages.length;
  for (const item of queued.slice(Math.max(0, room))) {
    await table.documents.send(new PutCommand({ TableName: table.tableName, Item: item }));
  }

  const set: Record<string, unknown> = {
    version: split.version,
    machineVersion: split.machineVersion,
    snapshot: compressJson(split.snapshot),
    lastSeq,
    pagedThrough: lastSeq,
    busy: split.busy,
    updatedAt: split.updatedAt,
    ...(expiresAt !== undefined && { expiresAt }),
    ...(split.busy && options.workIndex && { work: workShard(sourceId) }),
  };
  try {
    await transactWrite(table.documents, {
      TransactItems: [
        {
          Update: {
            TableName: table.tableName,
            Key: headKey(sourceId),
            UpdateExpression: `SET ${Object.keys(set)
              .map((name) => `#${name} = :${name}`)
              .join(', ')}, #fence = if_not_exists(#fence, :zero)`,
            ConditionExpression:
              'attribute_not_exists(#pk) OR (#version = :zero AND attribute_not_exists(#snapshot) AND attribute_not_exists(#forgottenThrough))',
            ExpressionAttributeNames: Object.fromEntries(
              [...Object.keys(set), 'fence', 'pk', 'forgottenThrough'].map((name) => [`#${name}`, name]),
            ),
            ExpressionAttributeValues: {
              ...Object.fromEntries(Object.entries(set).map(([name, value]) => [`:${name}`, value])),
              ':zero': 0,
            },
          },
        },
        ...pages.map((page) => ({
          Put: {
            TableName: table.tableName,
            Item: pageItem(sourceId, page, { fence: options.fence, version: split.version, expiresAt }),
          },
        })),
        ...queued
          .slice(0, Math.max(0, room))
          .map((item) => ({ Put: { TableName: table.tableName, Item: item } })),
        {
          Delete: {
            TableName: table.tableName,
            Key: { pk: sourceId, sk: CONVERSATION_SORT_KEY },
            ConditionExpression: '#version = :legacyVersion',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':legacyVersion': split.version },
          },
        },
      ],
    });
    return true;
  } catch (error) {
    const lostRace =
      error instanceof TransactionCanceledException &&
      (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');
    if (lostRace) return false;
    throw error;
  }
}

/** The event id of every inbox item of the source, with its key. */
async function inboxEvents(table: TableClient, sourceId: string) {
  const events: { sk: string; eventId: string }[] = [];
  const pages = paginateQuery(
    { client: table.documents },
    {
      TableName: table.tableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :inbox)',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#eventId': 'eventId' },
      ExpressionAttributeValues: { ':pk': sourceId, ':inbox': INBOX_PREFIX },
      ProjectionExpression: '#sk, #eventId',
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) events.push({ sk: String(item.sk), eventId: String(item.eventId) });
  }
  return events;
}

/** A first-wave `CONVERSATION` item, read for its migration: the snapshot is a JSON string. */
function conversationFromItem(item: Record<string, unknown>): FirstWaveConversation {
  return {
    sourceId: readString(item, 'pk'),
    version: readNumber(item, 'version'),
    machineVersion: readNumber(item, 'machineVersion'),
    snapshot: JSON.parse(readString(item, 'snapshot')) as JsonObject,
    busy: item.busy === true,
    updatedAt: readNumber(item, 'updatedAt'),
  };
}

function readString(item: Record<string, unknown>, name: string): string {
  const value = item[name];
  if (typeof value !== 'string')
    throw new TypeError(`stored item ${String(item.pk)}: ${name} is not a string`);
  return value;
}

function readNumber(item: Record<string, unknown>, name: string): number {
  const value = item[name];
  if (typeof value !== 'number')
    throw new TypeError(`stored item ${String(item.pk)}: ${name} is not a number`);
  return value;
}
