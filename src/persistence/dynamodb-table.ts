import { createHash } from 'node:crypto';
import type { CreateTableCommandInput, TimeToLiveSpecification } from '@aws-sdk/client-dynamodb';

/**
 * kaiwa's single-table design, shared by the stores, `scripts/create-table.ts` and the
 * deployment template. See `docs/persistence.md`.
 *
 * | item                        | pk                 | sk                                    | extra attributes                                      |
 * |-----------------------------|--------------------|---------------------------------------|-------------------------------------------------------|
 * | head (v2)                   | source id          | `HEAD`                                | version, fence, owner, snapshot (deflated JSON), tail, lastSeq, pagedThrough, busy, work? |
 * | history page (v2)           | source id          | `H#<last seq, 12 digits>`             | fromSeq, records (deflated JSON), fence, version, expiresAt? |
 * | profile (v2)                | source id          | `P#<user id>`                         | displayName?, fetchedAt, expiresAt?                   |
 * | consumed inbox keys (v2)    | source id          | `INBOX`                               | keys (string set)                                     |
 * | conversation (first wave)   | source id          | `CONVERSATION`                        | version, machineVersion, snapshot (JSON), busy, updatedAt, expiresAt?, work? |
 * | inbox item                  | source id          | `INBOX#<timestamp>#<arrival>#<event>` | eventId, message (JSON), acceptedAt, attempts?, work  |
 * | event claim                 | `CLAIM#<event id>` | `CLAIM`                               | claimedAt, expiresAt                                  |
 * | reminder (npm start)        | source id          | `R#<reminder id>`                     | reminder (JSON), dueKey, claimedBy?, claimedUntil?    |
 * | reminder due (npm start)    | `REMINDERS#DUE`    | `<due at, 15 digits>#<source>#<id>`   | reminder (JSON)                                       |
 * | background work running     | `BACKGROUND#RUNNING` | `<source>#<idempotency key>`        | call (JSON), owner, heartbeatAt, leaseMs              |
 */
export const dynamoDbKeys = {
  partition: 'pk',
  sort: 'sk',
  /** Set on inbox messages and on busy conversations only: the sparse work index's key. */
  work: 'work',
  /** Epoch seconds; the table's TTL attribute. */
  expiresAt: 'expiresAt',
} as const;

/** The first wave's whole-conversation item; the v2 store migrates it on first load. */
export const CONVERSATION_SORT_KEY = 'CONVERSATION';
/** The v2 head: everything of a source but history, inbox and profiles. */
export const HEAD_SORT_KEY = 'HEAD';
export const HISTORY_PREFIX = 'H#';
export const PROFILE_PREFIX = 'P#';
/**
 * Inbox keys a committed checkpoint consumed but could not delete inside its transaction
 * (100 actions): `inbox()` hides them and deletes them. It sorts just before the inbox items
 * and does not start with `INBOX#`, so a stream filter on that prefix never sees it.
 */
export const CONSUMED_INBOX_SORT_KEY = 'INBOX';
export const INBOX_PREFIX = 'INBOX#';
/** Set on an inbox item whose message an unsend took back while it waited (epoch ms). */
export const TAKEN_BACK_ATTRIBUTE = 'takenBackAt';
export const CLAIM_SORT_KEY = 'CLAIM';
/** A reminder of `npm start` on DynamoDB, in its source's partition (Lambda uses EventBridge Scheduler). */
export const REMINDER_PREFIX = 'R#';
/** The partition listing those reminders by due time, read by every process; never a source id. */
export const DUE_REMINDERS_PARTITION = 'REMINDERS#DUE';
/** The partition noting tools' background work while it runs, for a report if its process dies. */
export const RUNNING_BACKGROUND_PARTITION = 'BACKGROUND#RUNNING';
/** The sparse global secondary index: `work` (shard) → `pk` (source id), keys only. */
export const WORK_INDEX = 'work-index';
/**
 * The work index spreads its entries over this many partition-key values so that one hot
 * value never caps the webhook's write rate. Part of the schema: changing it hides the
 * entries written under the old count until they are consumed.
 */
export const WORK_SHARDS = 8;

/** The partition key of an event claim; LINE's source ids (U/C/R + 32 hex) never start like this. */
export function claimPartitionKey(eventId: string): string {
  return `CLAIM#${eventId}`;
}

/**
 * The Pipe hands an inbox item's sort key to SQS FIFO as its deduplication id, which SQS takes
 * up to 128 characters long; a longer one is refused, and the Pipe retries it for a day.
 */
const MAX_INBOX_SORT_KEY = 128;

/**
 * An inbox message's sort key. It orders by LINE's event timestamp first — assigned by LINE,
 * so it is the same on every webhook instance whatever their clocks say — then by the time
 * and per-process sequence of arrival, and ends with the event id, which keeps keys unique. An
 * event id too long for the key to fit `MAX_INBOX_SORT_KEY` (a repeating reminder's, 93
 * characters) ends it as its SHA-256 instead (`h.` + 43 characters of base64url): as unique.
 */
export function inboxSortKey(eventTimestamp: number, arrival: string, eventId: string): string {
  const start = `${INBOX_PREFIX}${padNumber(eventTimestamp, 15)}#${arrival}#`;
  return start.length + eventId.length <= MAX_INBOX_SORT_KEY
    ? start + eventId
    : `${start}h.${createHash('sha256').update(eventId).digest('base64url')}`;
}

/**
 * A history page's sort key: the last `seq` the page covers, so that the page a committed
 * checkpoint writes replaces any page an interrupted one left under the same key.
 */
export function historySortKey(throughSeq: number): string {
  return `${HISTORY_PREFIX}${padNumber(throughSeq, 12)}`;
}

export function profileSortKey(userId: string): string {
  return `${PROFILE_PREFIX}${userId}`;
}

/** The work index partition a source's entries go to (FNV-1a of the id, modulo the shard count). */
export function workShard(sourceId: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < sourceId.length; index++) {
    hash ^= sourceId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `WORK#${hash % WORK_SHARDS}`;
}

/** Every work index partition, for `sourcesWithWork`. */
export function allWorkShards(): string[] {
  return Array.from({ length: WORK_SHARDS }, (_, shard) => `WORK#${shard}`);
}

/**
 * The table: on-demand capacity, the sparse work index (unless `workIndex: false`: the Lambda
 * stack, where the work queue says which source has work), and a keys-only stream on which an
 * inbox insert tells the Lambda worker "this source has work".
 */
export function conversationTableDefinition(
  tableName: string,
  options: { readonly workIndex?: boolean } = {},
): CreateTableCommandInput {
  const workIndex = options.workIndex ?? true;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: dynamoDbKeys.partition, AttributeType: 'S' },
      { AttributeName: dynamoDbKeys.sort, AttributeType: 'S' },
      ...(workIndex ? [{ AttributeName: dynamoDbKeys.work, AttributeType: 'S' as const }] : []),
    ],
    KeySchema: [
      { AttributeName: dynamoDbKeys.partition, KeyType: 'HASH' },
      { AttributeName: dynamoDbKeys.sort, KeyType: 'RANGE' },
    ],
    ...(workIndex && {
      GlobalSecondaryIndexes: [
        {
          IndexName: WORK_INDEX,
          KeySchema: [
            { AttributeName: dynamoDbKeys.work, KeyType: 'HASH' },
            { AttributeName: dynamoDbKeys.partition, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    }),
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
  };
}

/** Expiry of idle conversations and of event claims. */
export function timeToLiveSpecification(): TimeToLiveSpecification {
  return { AttributeName: dynamoDbKeys.expiresAt, Enabled: true };
}

export function padNumber(value: number, width: number): string {
  return String(Math.max(0, Math.trunc(value))).padStart(width, '0');
}

/** Epoch seconds, as DynamoDB's time to live reads them. */
export function toEpochSeconds(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}
