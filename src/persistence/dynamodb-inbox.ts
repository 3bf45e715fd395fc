import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, QueryCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { isMessage, type InboxItem } from '../domain/index.js';
import { failedCondition } from './dynamodb-cancellation.js';
import { finishForget } from './dynamodb-forget.js';
import { toEpochSeconds } from './dynamodb-items.js';
import { admitToInbox } from './inbox-cap.js';
import { inboxItemFromStored, inboxStoredItem } from './dynamodb-source-items.js';
import {
  CLAIM_SORT_KEY,
  CONSUMED_INBOX_SORT_KEY,
  HEAD_SORT_KEY,
  INBOX_PREFIX,
  claimPartitionKey,
} from './dynamodb-table.js';
import type { WriteSteps } from './dynamodb-write-steps.js';
import { batchDelete, transactWrite, type TableClient } from './dynamodb-writes.js';
import type { StoredInboxItem } from './source-store.js';

// A source's inbox on DynamoDB: one item per accepted event under the source's partition
// (`INBOX#<event timestamp>#<arrival>#<event id>`, unique and stable per event: the stream and
// the SQS FIFO Pipe key on it), claimed by event id in the same transaction.

/**
 * Claims the event id and puts the inbox item, in one transaction; false when the claim
 * exists and has not expired (a redelivery: nothing is written). At `maxInbox` waiting items a
 * message is counted into the source's overflow item instead (`admitToInbox`): one query of at
 * most `maxInbox` items says how many wait and which is the newest. When the overflow item was
 * consumed meanwhile, the message starts a new one: nothing is lost, and at most one more item
 * is kept per such race.
 */
export async function acceptItem(
  table: TableClient,
  item: InboxItem,
  options: {
    readonly now: number;
    readonly claimTtlMs: number;
    readonly sortKey: string;
    readonly maxInbox: number;
    /** Write the sparse work index's key (docs/persistence.md, "The work index"). */
    readonly workIndex: boolean;
    readonly steps: WriteSteps;
  },
): Promise<boolean> {
  const tail = isMessage(item) ? await readInboxTail(table, item.source.id, options.maxInbox) : undefined;
  const admission = admitToInbox(item, tail ?? { waiting: 0, last: undefined }, options.maxInbox);
  if (admission.kind === 'replace') {
    const replaced = await putInboxItem(table, item.eventId, admission.item, {
      ...options,
      sortKey: tail!.key!,
    });
    if (replaced !== 'overflow-gone') return replaced;
    const fresh = admitToInbox(item, { waiting: options.maxInbox, last: undefined }, options.maxInbox);
    return (await putInboxItem(table, item.eventId, fresh.item, options)) === true;
  }
  return (await putInboxItem(table, item.eventId, admission.item, options)) === true;
}

/**
 * How many items wait (counted up to `maxInbox`: at most that many are read), and at the cap
 * the newest of them with its key.
 */
export async function readInboxTail(
  table: TableClient,
  sourceId: string,
  maxInbox: number,
): Promise<{ waiting: number; last: InboxItem | undefined; key: string | undefined }> {
  const answer = await table.documents.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :inboxEnd',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': sourceId, ':first': INBOX_PREFIX, ':inboxEnd': 'INBOX$' },
      ScanIndexForward: false,
      Select: 'COUNT',
      Limit: Math.max(1, maxInbox),
      ConsistentRead: true,
    }),
  );
  const waiting = answer.Count ?? 0;
  if (waiting < maxInbox) return { waiting, last: undefined, key: undefined };
  const newest = await table.documents.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :inboxEnd',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': sourceId, ':first': INBOX_PREFIX, ':inboxEnd': 'INBOX$' },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const stored = newest.Items?.[0];
  const last = stored ? inboxItemFromStored(stored) : undefined;
  return { waiting, last: last?.item, key: last?.key };
}

/**
 * Claims `eventId` and puts `stored` under `options.sortKey`. Replacing the overflow item
 * (its own event id differs from the claimed one) requires it to be still there and not
 * consumed by a committed checkpoint: otherwise `overflow-gone`.
 */
async function putInboxItem(
  table: TableClient,
  eventId: string,
  stored: InboxItem,
  options: {
    readonly now: number;
    readonly claimTtlMs: number;
    readonly sortKey: string;
    readonly workIndex: boolean;
    readonly steps: WriteSteps;
  },
): Promise<boolean | 'overflow-gone'> {
  const { now } = options;
  const replacing = stored.eventId !== eventId;
  try {
    await options.steps.commit(() =>
      transactWrite(table.documents, {
        TransactItems: [
          {
            Put: {
              TableName: table.tableName,
              Item: {
                pk: claimPartitionKey(eventId),
                sk: CLAIM_SORT_KEY,
                claimedAt: now,
                expiresAt: toEpochSeconds(now + options.claimTtlMs),
              },
              // An expired claim that TTL has not deleted yet counts as gone.
              ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt <= :now',
              ExpressionAttributeNames: { '#pk': 'pk', '#expiresAt': 'expiresAt' },
              ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
            },
          },
          {
            Put: {
              TableName: table.tableName,
              Item: inboxStoredItem(stored, { sortKey: options.sortKey, now, workIndex: options.workIndex }),
              ...(replacing && {
                ConditionExpression: 'attribute_exists(#pk)',
                ExpressionAttributeNames: { '#pk': 'pk' },
              }),
            },
          },
          ...(replacing
            ? [
                {
                  ConditionCheck: {
                    TableName: table.tableName,
                    Key: { pk: stored.source.id, sk: CONSUMED_INBOX_SORT_KEY },
                    ConditionExpression: 'attribute_not_exists(#keys) OR NOT contains(#keys, :sortKey)',
                    ExpressionAttributeNames: { '#keys': 'keys' },
                    ExpressionAttributeValues: { ':sortKey': options.sortKey },
                  },
                },
              ]
            : []),
        ],
      }),
    );
    return true;
  } catch (error) {
    if (failedCondition(error, 0)) return false;
    if (replacing && (failedCondition(error, 1) || failedCondition(error, 2))) return 'overflow-gone';
    throw error;
  }
}

/**
 * The source's waiting items, oldest first. One range from the head to the last item (`HEAD`,
 * then `INBOX` with the keys a checkpoint consumed but did not delete yet, then `INBOX#…`), so
 * that items a committed checkpoint or forget consumed are never shown; their deletes are
 * finished here.
 */
export async function readInbox(
  table: TableClient,
  sourceId: string,
  limit: number,
): Promise<StoredInboxItem[]> {
  let forgetThrough: string | undefined;
  let consumed = new Set<string>();
  const waiting: StoredInboxItem[] = [];
  const gone = (sortKey: string) =>
    consumed.has(sortKey) || (forgetThrough !== undefined && sortKey <= forgetThrough);
  const pages = paginateQuery(
    { client: table.documents, ...(Number.isFinite(limit) && { pageSize: limit + 2 }) },
    {
      TableName: table.tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :head AND :inboxEnd',
      ExpressionAttributeNames: {
        '#pk': 'pk',
        '#sk': 'sk',
        '#message': 'message',
        '#attempts': 'attempts',
        '#keys': 'keys',
        '#forgetThrough': 'forgetThrough',
      },
      ExpressionAttributeValues: { ':pk': sourceId, ':head': HEAD_SORT_KEY, ':inboxEnd': 'INBOX$' },
      // Every `INBOX#…` key sorts below `INBOX$`. The head's snapshot is not needed here.
      ProjectionExpression: '#sk, #message, #attempts, #keys, #forgetThrough',
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const sortKey = String(item.sk);
      if (sortKey === HEAD_SORT_KEY) forgetThrough = item.forgetThrough as string | undefined;
      else if (sortKey === CONSUMED_INBOX_SORT_KEY)
        consumed = (item.keys as Set<string> | undefined) ?? consumed;
      else if (sortKey.startsWith(INBOX_PREFIX) && !gone(sortKey)) waiting.push(inboxItemFromStored(item));
    }
    if (waiting.length >= limit) break;
  }
  // Writes that committed but stopped before their last deletes: finish them.
  if (forgetThrough !== undefined) await finishForget(table, sourceId, forgetThrough);
  if (consumed.size > 0) await deleteConsumed(table, sourceId, [...consumed]);
  return waiting.slice(0, limit);
}

/** Counts one more attempt on an inbox item; nothing when it is gone. */
export async function countInboxAttempt(
  table: TableClient,
  sourceId: string,
  key: string,
  steps: WriteSteps,
): Promise<void> {
  checkInboxKey(key);
  try {
    await steps.commit(() =>
      table.documents.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk: sourceId, sk: key },
          UpdateExpression: 'ADD #attempts :one',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#attempts': 'attempts', '#pk': 'pk' },
          ExpressionAttributeValues: { ':one': 1 },
        }),
      ),
    );
  } catch (error) {
    // Consumed meanwhile (or another source's key): nothing to count.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** Deletes inbox items a committed checkpoint consumed, then takes their keys off its list. */
export async function deleteConsumed(
  table: TableClient,
  sourceId: string,
  keys: readonly string[],
): Promise<void> {
  const list = { pk: sourceId, sk: CONSUMED_INBOX_SORT_KEY };
  await batchDelete(
    table.documents,
    table.tableName,
    keys.map((sk) => ({ pk: sourceId, sk })),
  );
  await table.documents
    .send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: list,
        UpdateExpression: 'DELETE #keys :keys',
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: { '#keys': 'keys', '#pk': 'pk' },
        ExpressionAttributeValues: { ':keys': new Set(keys) },
      }),
    )
    .catch((error: unknown) => {
      // Another reader finished it first.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    });
  try {
    await table.documents.send(
      new DeleteCommand({
        TableName: table.tableName,
        Key: list,
        ConditionExpression: 'attribute_not_exists(#keys)',
        ExpressionAttributeNames: { '#keys': 'keys' },
      }),
    );
  } catch (error) {
    // Another checkpoint listed more keys meanwhile: they are its to finish.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** A key this store gave out for an inbox item; anything else is a caller's bug. */
export function checkInboxKey(key: string): void {
  if (!key.startsWith(INBOX_PREFIX)) throw new RangeError(`not an inbox key: ${JSON.stringify(key)}`);
}
