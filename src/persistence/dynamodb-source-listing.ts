import { QueryCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import { headFromItem } from './dynamodb-source-items.js';
import {
  CONVERSATION_SORT_KEY,
  HEAD_SORT_KEY,
  INBOX_PREFIX,
  WORK_INDEX,
  allWorkShards,
} from './dynamodb-table.js';
import type { TableClient } from './dynamodb-writes.js';
import { byRecentUpdate, type SourceSummary } from './source-store.js';

/**
 * Sources with inbox items or a busy head, from the sparse work index (eventually consistent:
 * work written a moment ago may be missing; the stream or the next message brings it).
 */
export async function sourcesWithWork(table: TableClient): Promise<string[]> {
  const perShard = await Promise.all(
    allWorkShards().map(async (shard) => {
      const sourceIds: string[] = [];
      let exclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const { Items, LastEvaluatedKey } = await table.documents.send(
          new QueryCommand({
            TableName: table.tableName,
            IndexName: WORK_INDEX,
            KeyConditionExpression: '#work = :shard',
            ExpressionAttributeNames: { '#work': 'work' },
            ExpressionAttributeValues: { ':shard': shard },
            ExclusiveStartKey: exclusiveStartKey,
          }),
        );
        for (const item of Items ?? []) sourceIds.push(String(item.pk));
        exclusiveStartKey = LastEvaluatedKey;
      } while (exclusiveStartKey !== undefined);
      return sourceIds;
    }),
  );
  return [...new Set(perShard.flat())];
}

/**
 * The sources, the most recently updated first, at most `limit`: each head (or first-wave item)
 * with the size of its inbox; a source with only inbox items is listed at version 0. A full scan
 * of the table, whatever the limit: for the inspector (which asks at most every half minute) and
 * operators, never on a request path.
 */
export async function listSources(table: TableClient, limit = Infinity): Promise<SourceSummary[]> {
  const summaries = new Map<string, SourceSummary>();
  const inboxSizes = new Map<string, number>();
  const pages = paginateScan(
    { client: table.documents },
    {
      TableName: table.tableName,
      FilterExpression: '#sk IN (:head, :conversation) OR begins_with(#sk, :inbox)',
      ExpressionAttributeNames: { '#sk': 'sk' },
      ExpressionAttributeValues: {
        ':head': HEAD_SORT_KEY,
        ':conversation': CONVERSATION_SORT_KEY,
        ':inbox': INBOX_PREFIX,
      },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const sourceId = String(item.pk);
      if (String(item.sk).startsWith(INBOX_PREFIX)) {
        inboxSizes.set(sourceId, (inboxSizes.get(sourceId) ?? 0) + 1);
      } else if (item.sk === HEAD_SORT_KEY) {
        const { head } = headFromItem(item);
        summaries.set(sourceId, {
          sourceId,
          version: head.version,
          ...(head.owner && { owner: head.owner }),
          busy: head.busy,
          inboxSize: 0,
          updatedAt: head.updatedAt,
        });
      } else if (!summaries.has(sourceId)) {
        // A first-wave conversation not migrated yet; its head, if any, replaces it.
        summaries.set(sourceId, {
          sourceId,
          version: Number(item.version),
          busy: item.busy === true,
          inboxSize: 0,
          updatedAt: Number(item.updatedAt),
        });
      }
    }
  }
  for (const sourceId of inboxSizes.keys()) {
    if (!summaries.has(sourceId))
      summaries.set(sourceId, { sourceId, version: 0, busy: false, inboxSize: 0, updatedAt: 0 });
  }
  return [...summaries.values()]
    .map((summary) => ({ ...summary, inboxSize: inboxSizes.get(summary.sourceId) ?? 0 }))
    .sort(byRecentUpdate)
    .slice(0, limit);
}
