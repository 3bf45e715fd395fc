import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { compressJson } from './dynamodb-compressed-json.js';
import { paginate } from './dynamodb-history-pages.js';
import type { MigratedConversation } from './dynamodb-legacy-conversation.js';
import { headKey, pageItem, profileItem } from './dynamodb-source-items.js';
import { CONVERSATION_SORT_KEY, workShard } from './dynamodb-table.js';
import { batchPut, transactWrite, type TableClient } from './dynamodb-writes.js';

/**
 * Writes a first-wave conversation as a v2 head with history pages, and deletes the old item,
 * in one transaction: the head only if no checkpoint wrote one yet (an `acquire` may have
 * created it: its owner and fence stay), the delete only if the old item still has the version
 * that was read. False when either changed meanwhile: the caller reads again. Profiles are
 * written first, outside the transaction: they are a cache, and writing them twice is harmless.
 */
export async function migrateLegacyConversation(
  table: TableClient,
  migrated: MigratedConversation,
  options: {
    readonly sourceId: string;
    readonly fence: number;
    readonly expiresAt: number | undefined;
    readonly pageJsonBytes: number;
  },
): Promise<boolean> {
  const { sourceId, expiresAt } = options;
  if (migrated.profiles.length > 0) {
    await batchPut(
      table.documents,
      table.tableName,
      migrated.profiles.map((profile) => profileItem(sourceId, profile, { expiresAt })),
    );
  }
  const lastSeq = migrated.records.length;
  const pages =
    lastSeq > 0 ? paginate(migrated.records, { fromSeq: 1, throughSeq: lastSeq }, options.pageJsonBytes) : [];
  const set: Record<string, unknown> = {
    version: migrated.version,
    machineVersion: migrated.machineVersion,
    snapshot: compressJson(migrated.snapshot),
    lastSeq,
    pagedThrough: lastSeq,
    busy: migrated.busy,
    updatedAt: migrated.updatedAt,
    ...(expiresAt !== undefined && { expiresAt }),
    ...(migrated.busy && { work: workShard(sourceId) }),
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
            Item: pageItem(sourceId, page, { fence: options.fence, version: migrated.version, expiresAt }),
          },
        })),
        {
          Delete: {
            TableName: table.tableName,
            Key: { pk: sourceId, sk: CONVERSATION_SORT_KEY },
            ConditionExpression: '#version = :legacyVersion',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':legacyVersion': migrated.version },
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
