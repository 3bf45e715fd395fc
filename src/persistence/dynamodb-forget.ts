import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { failedCondition } from './dynamodb-cancellation.js';
import { lostOwnership } from './dynamodb-returned-item.js';
import { headKey } from './dynamodb-source-items.js';
import {
  CONVERSATION_SORT_KEY,
  HEAD_SORT_KEY,
  HISTORY_PREFIX,
  INBOX_PREFIX,
  PROFILE_PREFIX,
  historySortKey,
} from './dynamodb-table.js';
import type { WriteSteps } from './dynamodb-write-steps.js';
import { batchDelete, transactWrite, type TableClient } from './dynamodb-writes.js';
import { OwnershipLostError } from './ownership-lost-error.js';
import type { Ownership } from './source-store.js';

// Unfollow and leave (docs/persistence.md, "Forget"). One transaction turns the head into a
// tombstone (no snapshot, history hidden below `forgottenThrough`, version + 1, owner and fence
// kept) and deletes the source's history pages, profiles, first-wave item and inbox items up to
// the forget item. When that is more than one transaction holds, the tombstone also records
// `forgetThrough`, the rest is deleted right after, and a reader that finds the mark first
// (load, inbox, profiles) finishes the deletes: every reader sees the whole forget or none.

/** Forgets the source under the caller's fence. */
export async function forgetSource(
  table: TableClient,
  ownership: Ownership,
  throughKey: string,
  options: { readonly now: number; readonly transactionActions: number; readonly steps: WriteSteps },
): Promise<void> {
  const { sourceId } = ownership;
  const { doomed, lastSeq } = await forgottenKeys(table, sourceId, throughKey);
  const inTransaction = doomed.slice(0, options.transactionActions - 1);
  const rest = doomed.slice(inTransaction.length);
  try {
    await options.steps.commit(() =>
      transactWrite(table.documents, {
        TransactItems: [
          {
            Update: {
              TableName: table.tableName,
              Key: headKey(sourceId),
              UpdateExpression:
                'SET #version = #version + :one, #forgottenThrough = :lastSeq, #pagedThrough = :lastSeq, ' +
                '#busy = :false, #updatedAt = :now' +
                (rest.length > 0 ? ', #forgetThrough = :throughKey' : '') +
                ' REMOVE #snapshot, #tail, #work',
              ConditionExpression: '#fence = :fence AND #ownerId = :ownerId AND #lastSeq = :lastSeq',
              ExpressionAttributeNames: Object.fromEntries(
                [
                  'version',
                  'forgottenThrough',
                  'pagedThrough',
                  'busy',
                  'updatedAt',
                  'snapshot',
                  'tail',
                  'work',
                  'fence',
                  'ownerId',
                  'lastSeq',
                  ...(rest.length > 0 ? ['forgetThrough'] : []),
                ].map((name) => [`#${name}`, name]),
              ),
              ExpressionAttributeValues: {
                ':one': 1,
                ':lastSeq': lastSeq,
                ':false': false,
                ':now': options.now,
                ':fence': ownership.fence,
                ':ownerId': ownership.ownerId,
                ...(rest.length > 0 && { ':throughKey': throughKey }),
              },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          ...inTransaction.map((sk) => ({
            Delete: { TableName: table.tableName, Key: { pk: sourceId, sk } },
          })),
        ],
      }),
    );
  } catch (error) {
    const reason = failedCondition(error, 0);
    if (reason) {
      // The owner wrote a checkpoint between the read and this write: impossible while it waits
      // for this forget, so only another owner can have changed the head.
      throw (
        lostOwnership(ownership, reason.Item) ??
        new OwnershipLostError(sourceId, ownership.fence, ownership.fence, ownership.ownerId)
      );
    }
    throw error;
  }
  if (rest.length > 0) {
    options.steps.after('finish');
    await finishForget(table, sourceId, throughKey, rest);
  }
}

/**
 * Deletes what a committed forget could not delete in its transaction, then removes its mark.
 * `keys` are those left over, or undefined to look them up again (a reader finishing the work
 * of a forget that was interrupted).
 */
export async function finishForget(
  table: TableClient,
  sourceId: string,
  throughKey: string,
  keys?: readonly string[],
): Promise<void> {
  const doomed = keys ?? (await forgottenKeys(table, sourceId, throughKey)).doomed;
  await batchDelete(
    table.documents,
    table.tableName,
    doomed.map((sk) => ({ pk: sourceId, sk })),
  );
  try {
    await table.documents.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: headKey(sourceId),
        UpdateExpression: 'REMOVE #forgetThrough',
        ConditionExpression: '#forgetThrough = :throughKey',
        ExpressionAttributeNames: { '#forgetThrough': 'forgetThrough' },
        ExpressionAttributeValues: { ':throughKey': throughKey },
      }),
    );
  } catch (error) {
    // Another reader finished it first.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * The sort keys a forget through `throughKey` deletes: the inbox up to it first (what readers
 * see soonest), then profiles, the first-wave item, and the history pages up to the head's
 * `lastSeq`. Pages above it were never committed and are left to be overwritten or expire.
 */
async function forgottenKeys(table: TableClient, sourceId: string, throughKey: string) {
  const inbox: string[] = [];
  const others: string[] = [];
  const pages: number[] = [];
  let lastSeq = 0;
  const items = paginateQuery(
    { client: table.documents },
    {
      TableName: table.tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#lastSeq': 'lastSeq' },
      ExpressionAttributeValues: { ':pk': sourceId },
      ProjectionExpression: '#sk, #lastSeq',
      ConsistentRead: true,
    },
  );
  for await (const page of items) {
    for (const item of page.Items ?? []) {
      const sk = String(item.sk);
      if (sk === HEAD_SORT_KEY) lastSeq = Number(item.lastSeq ?? 0);
      else if (sk.startsWith(INBOX_PREFIX)) {
        if (sk <= throughKey) inbox.push(sk);
      } else if (sk.startsWith(PROFILE_PREFIX) || sk === CONVERSATION_SORT_KEY) others.push(sk);
      else if (sk.startsWith(HISTORY_PREFIX)) pages.push(Number(sk.slice(HISTORY_PREFIX.length)));
    }
  }
  const committedPages = pages.filter((throughSeq) => throughSeq <= lastSeq).map(historySortKey);
  return { doomed: [...inbox, ...others, ...committedPages], lastSeq };
}
