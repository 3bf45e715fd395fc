import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { failedCondition } from './dynamodb-cancellation.js';
import { compressJson } from './dynamodb-compressed-json.js';
import { paginate, type HistoryPage } from './dynamodb-history-pages.js';
import { checkInboxKey } from './dynamodb-inbox.js';
import { pagesHolding } from './dynamodb-history-reader.js';
import { dynamoDbItemSize, type ScalarItem } from './dynamodb-item-size.js';
import { lostOwnership, returnedNumber, returnedString } from './dynamodb-returned-item.js';
import type { DynamoDbSourceStoreLimits } from './dynamodb-source-limits.js';
import { OWNER_ATTRIBUTES, headKey, pageItem, type StoredItem } from './dynamodb-source-items.js';
import { CONSUMED_INBOX_SORT_KEY, TAKEN_BACK_ATTRIBUTE, workShard } from './dynamodb-table.js';
import type { WriteSteps } from './dynamodb-write-steps.js';
import { transactWrite, type TableClient, type TransactionUpdate } from './dynamodb-writes.js';
import { ItemTooLargeError } from './item-too-large-error.js';
import { MessageTakenBackError } from './message-taken-back-error.js';
import { OwnershipLostError } from './ownership-lost-error.js';
import type { Checkpoint, HistoryRecord } from './source-store.js';
import { nextLastSeq } from './store-validation.js';
import { VersionConflictError } from './version-conflict-error.js';

// One checkpoint on DynamoDB (docs/persistence.md, "Checkpoints"). Two shapes:
// - head only: no inbox item consumed, nothing taken back from a page, and the head's tail
//   still small with the new records in it. One conditional UpdateItem: a standard write.
// - transaction: the head (its tail emptied), one history page with the tail and the new
//   records, rewritten pages that lost a record to an unsend, and the consumed inbox deletes.

/** What a checkpoint builds on: the head as the previous checkpoint (or a load) left it. */
export interface CheckpointBase {
  readonly version: number;
  readonly lastSeq: number;
  readonly pagedThrough: number;
  readonly forgottenThrough: number;
  readonly tail: readonly HistoryRecord[];
  /** The stored tail did not read back: this checkpoint starts history after it. */
  readonly unreadableTail?: true;
}

export interface CheckpointWriteOptions {
  readonly now: number;
  /** The TTL (epoch seconds) of the head and of pages written now; undefined: none. */
  readonly expiresAt: number | undefined;
  readonly limits: DynamoDbSourceStoreLimits;
  readonly maxItemBytes: number;
  /** Write the sparse work index's key while busy (docs/persistence.md, "The work index"). */
  readonly workIndex: boolean;
  readonly steps: WriteSteps;
}

export interface WrittenCheckpoint {
  /** The head as this checkpoint left it, for the next one. */
  readonly base: CheckpointBase;
  /** Consumed inbox keys the transaction had no room to delete: listed, to delete now. */
  readonly overflowKeys: readonly string[];
}

/**
 * Writes the checkpoint under its fence and version. Throws `OwnershipLostError` when the
 * fence moved on, `VersionConflictError` when the version did (both read from the failed
 * condition, no extra read), `ItemTooLargeError` before writing an item over the limit.
 */
export async function writeCheckpoint(
  table: TableClient,
  checkpoint: Checkpoint,
  base: CheckpointBase,
  options: CheckpointWriteOptions,
): Promise<WrittenCheckpoint> {
  const { sourceId } = checkpoint.ownership;
  // A tail that did not read back: what it held is lost, and the history before it is hidden as a
  // forget hides it, so no window joins older pages across the gap (docs/persistence.md).
  const hideThrough = base.unreadableTail ? base.lastSeq : undefined;
  if (hideThrough !== undefined) {
    const { unreadableTail, ...readable } = base;
    void unreadableTail;
    base = { ...readable, tail: [], pagedThrough: hideThrough, forgottenThrough: hideThrough };
  }
  const lastSeq = nextLastSeq(sourceId, base.lastSeq, checkpoint.appended);
  const consumed = [...new Set(checkpoint.consumedKeys)];
  consumed.forEach(checkInboxKey);
  const removed = new Set(checkpoint.removedSeqs);
  const tail = [...base.tail.filter((record) => !removed.has(record.seq)), ...checkpoint.appended];
  const removedFromPages = checkpoint.removedSeqs.filter(
    (seq) => seq > base.forgottenThrough && seq <= base.pagedThrough,
  );
  const version = checkpoint.expectedVersion + 1;
  const next = { ...base, version, lastSeq };

  const { limits, steps } = options;
  const keepTail =
    consumed.length === 0 &&
    removedFromPages.length === 0 &&
    tail.length <= limits.tailRecords &&
    Buffer.byteLength(JSON.stringify(tail), 'utf8') <= limits.tailJsonBytes;
  if (keepTail) {
    const update = headUpdate(table.tableName, checkpoint, { ...next, tail }, options, hideThrough);
    try {
      await steps.commit(() => table.documents.send(new UpdateCommand(update)));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw refused(checkpoint, error.Item);
      throw error;
    }
    return { base: { ...next, tail }, overflowKeys: [] };
  }

  const pages =
    tail.length > 0
      ? paginate(tail, { fromSeq: base.pagedThrough + 1, throughSeq: lastSeq }, limits.pageJsonBytes)
      : [];
  const written = { ...next, pagedThrough: pages.length > 0 ? lastSeq : base.pagedThrough, tail: [] };
  const rewritten =
    removedFromPages.length > 0
      ? (
          await pagesHolding(table, { sourceId, ...base }, removedFromPages, Math.floor(options.now / 1000))
        ).map((page): HistoryPage => ({
          ...page,
          records: page.records.filter((record) => !removed.has(record.seq)),
        }))
      : [];
  const stamp = { fence: checkpoint.ownership.fence, version };
  const head = headUpdate(table.tableName, checkpoint, written, options, hideThrough);
  const rewrites = rewritten.map((page) => pageItem(sourceId, page, { ...stamp, expiresAt: page.expiresAt }));
  const newPages = pages.map((page) => pageItem(sourceId, page, { ...stamp, expiresAt: options.expiresAt }));
  for (const item of [...rewrites, ...newPages]) checkSize(sourceId, item, options.maxItemBytes);

  const { inTransaction, before, deleted, overflowKeys } = fitTransaction({
    pages: newPages,
    consumed,
    fixedActions: 1 + rewrites.length,
    fixedBytes: dynamoDbItemSize(head.ExpressionAttributeValues as ScalarItem) + sumSizes(rewrites),
    limits,
  });
  for (const item of before) {
    steps.before('history');
    await prewritePage(table, checkpoint, item);
  }
  try {
    await steps.commit(() =>
      transactWrite(table.documents, {
        TransactItems: [
          { Update: head },
          ...[...rewrites, ...inTransaction].map((item) => ({
            Put: { TableName: table.tableName, Item: item },
          })),
          ...deleted.map((sk) => ({
            Delete: {
              TableName: table.tableName,
              Key: { pk: sourceId, sk },
              // A message its sender took back since the turn read it: its answer must not go out.
              ...(checkpoint.answering && {
                ConditionExpression: 'attribute_not_exists(#takenBackAt)',
                ExpressionAttributeNames: { '#takenBackAt': TAKEN_BACK_ATTRIBUTE },
              }),
            },
          })),
          ...(overflowKeys.length > 0
            ? [
                {
                  Update: {
                    TableName: table.tableName,
                    Key: { pk: sourceId, sk: CONSUMED_INBOX_SORT_KEY },
                    UpdateExpression: 'ADD #keys :keys',
                    ExpressionAttributeNames: { '#keys': 'keys' },
                    ExpressionAttributeValues: { ':keys': new Set(overflowKeys) },
                  },
                },
              ]
            : []),
        ],
      }),
    );
  } catch (error) {
    const reason = failedCondition(error, 0);
    if (reason) throw refused(checkpoint, reason.Item);
    const firstDelete = 1 + rewrites.length + inTransaction.length;
    const takenBack = deleted.filter((_, index) => failedCondition(error, firstDelete + index));
    if (takenBack.length > 0) throw new MessageTakenBackError(sourceId, takenBack);
    throw error;
  }
  return { base: written, overflowKeys };
}

/**
 * What of a checkpoint goes in its transaction (100 actions, 4 MB). The newest pages go in it;
 * older ones that do not fit are written first, each unseen until the head's `pagedThrough`
 * covers it (a crash in between leaves them off the chain). Consumed keys fill the room left;
 * the rest are listed in the transaction and deleted after it, so one action stays free for
 * a delete or that list.
 */
function fitTransaction(plan: {
  readonly pages: readonly StoredItem[];
  readonly consumed: readonly string[];
  readonly fixedActions: number;
  readonly fixedBytes: number;
  readonly limits: Pick<DynamoDbSourceStoreLimits, 'transactionActions' | 'transactionBytes'>;
}) {
  const { consumed, limits } = plan;
  let room = limits.transactionActions - plan.fixedActions - (consumed.length > 0 ? 1 : 0);
  let bytes = plan.fixedBytes;
  const inTransaction: StoredItem[] = [];
  const before: StoredItem[] = [];
  for (const item of [...plan.pages].reverse()) {
    const size = dynamoDbItemSize(item as ScalarItem);
    if (room > 0 && bytes + size <= limits.transactionBytes) {
      inTransaction.unshift(item);
      room--;
      bytes += size;
    } else before.unshift(item);
  }
  if (consumed.length > 0) room++;
  const deleted = consumed.length <= room ? consumed : consumed.slice(0, room - 1);
  return { inTransaction, before, deleted, overflowKeys: consumed.slice(deleted.length) };
}

/** The conditional update of the head: the new state, under the fence and the expected version. */
function headUpdate(
  tableName: string,
  checkpoint: Checkpoint,
  head: Omit<CheckpointBase, 'forgottenThrough'>,
  options: CheckpointWriteOptions,
  forgottenThrough: number | undefined,
): TransactionUpdate & { ExpressionAttributeValues: Record<string, unknown> } {
  const { sourceId } = checkpoint.ownership;
  const set: Record<string, unknown> = {
    version: head.version,
    machineVersion: checkpoint.machineVersion,
    snapshot: compressJson(checkpoint.snapshot),
    lastSeq: head.lastSeq,
    pagedThrough: head.pagedThrough,
    ...(forgottenThrough !== undefined && { forgottenThrough }),
    busy: checkpoint.busy,
    updatedAt: options.now,
    ...(options.expiresAt !== undefined && { expiresAt: options.expiresAt }),
    ...(head.tail.length > 0 && { tail: compressJson(head.tail) }),
    // Only while busy: the sparse work index then lists the source for recovery.
    ...(checkpoint.busy && options.workIndex && { work: workShard(sourceId) }),
  };
  const size = dynamoDbItemSize({ ...headKey(sourceId), ...(set as ScalarItem) });
  if (size > options.maxItemBytes) throw new ItemTooLargeError(sourceId, size, options.maxItemBytes);
  const removed = [
    ...(head.tail.length > 0 ? [] : ['tail']),
    ...(checkpoint.busy || !options.workIndex ? [] : ['work']),
    // Released in the same write: the head keeps no owner (as `releaseHead` leaves it).
    ...(checkpoint.release ? OWNER_ATTRIBUTES : []),
  ];
  return {
    TableName: tableName,
    Key: headKey(sourceId),
    UpdateExpression:
      `SET ${Object.keys(set)
        .map((name) => `#${name} = :${name}`)
        .join(', ')}` + (removed.length > 0 ? ` REMOVE ${removed.map((name) => `#${name}`).join(', ')}` : ''),
    ConditionExpression: '#fence = :fence AND #ownerId = :ownerId AND #version = :expected',
    ExpressionAttributeNames: Object.fromEntries(
      [...Object.keys(set), ...removed, 'fence', 'ownerId'].map((name) => [`#${name}`, name]),
    ),
    ExpressionAttributeValues: {
      ...Object.fromEntries(Object.entries(set).map(([name, value]) => [`:${name}`, value])),
      ':expected': checkpoint.expectedVersion,
      ':fence': checkpoint.ownership.fence,
      ':ownerId': checkpoint.ownership.ownerId,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * A page written ahead of its checkpoint's transaction. It may replace what an interrupted
 * checkpoint left under its key, never a page of a newer owner or a committed one.
 */
async function prewritePage(table: TableClient, checkpoint: Checkpoint, item: StoredItem): Promise<void> {
  try {
    await table.documents.send(
      new PutCommand({
        TableName: table.tableName,
        Item: item,
        ConditionExpression:
          'attribute_not_exists(#pk) OR #fence < :fence OR (#fence = :fence AND #version > :expected)',
        ExpressionAttributeNames: { '#pk': 'pk', '#fence': 'fence', '#version': 'version' },
        ExpressionAttributeValues: {
          ':fence': checkpoint.ownership.fence,
          ':expected': checkpoint.expectedVersion,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const fence = returnedNumber(error.Item, 'fence');
    const { sourceId } = checkpoint.ownership;
    throw fence !== undefined && fence > checkpoint.ownership.fence
      ? new OwnershipLostError(
          sourceId,
          checkpoint.ownership.fence,
          fence,
          returnedString(error.Item, 'ownerId'),
        )
      : new VersionConflictError(sourceId, checkpoint.expectedVersion, undefined);
  }
}

/** Why the head refused the write, from the item its condition saw: the fence first. */
function refused(checkpoint: Checkpoint, returned: unknown): Error {
  return (
    lostOwnership(checkpoint.ownership, returned) ??
    new VersionConflictError(
      checkpoint.ownership.sourceId,
      checkpoint.expectedVersion,
      returnedNumber(returned, 'version'),
    )
  );
}

function checkSize(sourceId: string, item: StoredItem, maxItemBytes: number): void {
  const size = dynamoDbItemSize(item as ScalarItem);
  if (size > maxItemBytes) throw new ItemTooLargeError(sourceId, size, maxItemBytes);
}

function sumSizes(items: readonly StoredItem[]): number {
  return items.reduce((sum, item) => sum + dynamoDbItemSize(item as ScalarItem), 0);
}
