import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { isMessage, type Clock, type InboxItem, type UnsendEvent } from '../domain/index.js';
import { failedCondition } from './dynamodb-cancellation.js';
import { inboxItemFromStored, inboxStoredItem } from './dynamodb-source-items.js';
import {
  CLAIM_SORT_KEY,
  CONSUMED_INBOX_SORT_KEY,
  INBOX_PREFIX,
  TAKEN_BACK_ATTRIBUTE,
  claimPartitionKey,
  inboxSortKey,
  padNumber,
  toEpochSeconds,
} from './dynamodb-table.js';
import { writeSteps, type WriteSteps } from './dynamodb-write-steps.js';
import { transactWrite, type TableClient } from './dynamodb-writes.js';
import { admitToInbox } from './inbox-cap.js';
import type { ResolvedSourceStoreOptions } from './source-store-options.js';
import type { SourceStore } from './source-store.js';

// A source's inbox on DynamoDB: one item per accepted event under the source's partition
// (`INBOX#<event timestamp>#<arrival>#<event id>`, unique and stable per event: the stream and
// the SQS FIFO Pipe key on it), claimed by event id in the same transaction. Reading and
// consuming it is the source store's (`dynamodb-inbox.ts`).

/**
 * `accept` on kaiwa's DynamoDB table, and nothing else: the event's claim and its inbox item in
 * one transaction (docs/persistence.md, "Writes"). The source store accepts through it; the
 * Lambda functions that only accept (the webhook, the reminder) use it alone, so their bundles
 * leave out the checkpoint, ownership, history and migration code.
 */
export class DynamoDbInboxWriter implements Pick<SourceStore, 'accept'> {
  private readonly clock: Clock;
  private readonly claimTtlMs: number;
  private readonly maxInbox: number;
  private readonly onWriteStep: (step: string) => void;
  /** Write the sparse work index's key (off on Lambda: docs/persistence.md, "The work index"). */
  private readonly workIndex: boolean;
  /** Orders items accepted in the same millisecond by this process. */
  private sequence = 0;

  constructor(
    private readonly table: TableClient,
    options: ResolvedSourceStoreOptions & { readonly workIndex: boolean },
  ) {
    ({
      clock: this.clock,
      claimTtlMs: this.claimTtlMs,
      maxInbox: this.maxInbox,
      onWriteStep: this.onWriteStep,
      workIndex: this.workIndex,
    } = options);
  }

  async accept(item: InboxItem): Promise<boolean> {
    const now = this.clock.now();
    this.sequence = (this.sequence + 1) % 1_000_000;
    const steps = writeSteps(this.onWriteStep, 'accept');
    const accepted = await acceptItem(this.table, item, {
      now,
      claimTtlMs: this.claimTtlMs,
      maxInbox: this.maxInbox,
      sortKey: inboxSortKey(
        item.timestamp,
        `${padNumber(now, 15)}.${padNumber(this.sequence, 6)}`,
        item.eventId,
      ),
      workIndex: this.workIndex,
      steps,
    });
    if (accepted && item.kind === 'unsend') await markTakenBack(this.table, item, now, steps);
    return accepted;
  }
}

/**
 * Marks the waiting inbox items of the message an unsend takes back (`takenBackAt`): the
 * checkpoint of a turn already answering one is refused, so its answer never goes out
 * (docs/runtime.md). After the unsend's own write, not in it: a transaction cannot look the
 * items up, and a crash in between only leaves the message answered, as it was before.
 */
async function markTakenBack(table: TableClient, unsend: UnsendEvent, now: number, steps: WriteSteps) {
  const pages = paginateQuery(
    { client: table.documents },
    {
      TableName: table.tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :inboxEnd',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#message': 'message' },
      ExpressionAttributeValues: { ':pk': unsend.source.id, ':first': INBOX_PREFIX, ':inboxEnd': 'INBOX$' },
      ProjectionExpression: '#sk, #message',
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const stored of page.Items ?? []) {
      const { key, item } = inboxItemFromStored(stored);
      if (!item || !isMessage(item) || item.messageId !== unsend.messageId) continue;
      steps.after('takenBack');
      try {
        await table.documents.send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: { pk: unsend.source.id, sk: key },
            UpdateExpression: 'SET #takenBackAt = :now',
            ConditionExpression: 'attribute_exists(#pk)',
            ExpressionAttributeNames: { '#takenBackAt': TAKEN_BACK_ATTRIBUTE, '#pk': 'pk' },
            ExpressionAttributeValues: { ':now': now },
          }),
        );
      } catch (error) {
        // Consumed meanwhile: its turn's intent is durable, too late to hold the answer back.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
  }
}

/**
 * Claims the event id and puts the inbox item, in one transaction; false when the claim
 * exists and has not expired (a redelivery: nothing is written). At `maxInbox` waiting items a
 * message is counted into the source's overflow item instead (`admitToInbox`): one query of at
 * most `maxInbox` items says how many wait and which is the newest. When the overflow item was
 * consumed meanwhile, the message starts a new one: nothing is lost, and at most one more item
 * is kept per such race.
 */
async function acceptItem(
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
async function readInboxTail(
  table: TableClient,
  sourceId: string,
  maxInbox: number,
): Promise<{ waiting: number; last: InboxItem | undefined; key: string | undefined }> {
  // The source's inbox items, newest first.
  const newestFirst = {
    TableName: table.tableName,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :inboxEnd',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
    ExpressionAttributeValues: { ':pk': sourceId, ':first': INBOX_PREFIX, ':inboxEnd': 'INBOX$' },
    ScanIndexForward: false,
    ConsistentRead: true,
  };
  const answer = await table.documents.send(
    new QueryCommand({ ...newestFirst, Select: 'COUNT', Limit: Math.max(1, maxInbox) }),
  );
  const waiting = answer.Count ?? 0;
  if (waiting < maxInbox) return { waiting, last: undefined, key: undefined };
  const newest = await table.documents.send(new QueryCommand({ ...newestFirst, Limit: 1 }));
  const stored = newest.Items?.[0];
  const last = stored ? inboxItemFromStored(stored) : undefined;
  // An unreadable newest item is no overflow item: a new one goes after it.
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
