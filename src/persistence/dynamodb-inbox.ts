import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { finishForget } from './dynamodb-forget.js';
import { inboxItemFromStored } from './dynamodb-source-items.js';
import {
  CONSUMED_INBOX_SORT_KEY,
  HEAD_SORT_KEY,
  INBOX_PREFIX,
  TAKEN_BACK_ATTRIBUTE,
} from './dynamodb-table.js';
import type { WriteSteps } from './dynamodb-write-steps.js';
import { batchDelete, type TableClient } from './dynamodb-writes.js';
import type { StoredInboxItem } from './source-store.js';

// A source's inbox on DynamoDB, as its owner reads and consumes it: the items, their attempts,
// the deletes a checkpoint left. Accepting into it is `DynamoDbInboxWriter`'s.

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
        '#eventId': 'eventId',
        '#takenBackAt': TAKEN_BACK_ATTRIBUTE,
      },
      ExpressionAttributeValues: { ':pk': sourceId, ':head': HEAD_SORT_KEY, ':inboxEnd': 'INBOX$' },
      // Every `INBOX#…` key sorts below `INBOX$`. The head's snapshot is not needed here.
      ProjectionExpression: '#sk, #message, #eventId, #attempts, #keys, #forgetThrough, #takenBackAt',
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
