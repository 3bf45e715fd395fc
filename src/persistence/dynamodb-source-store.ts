import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  UpdateCommand,
  paginateQuery,
  paginateScan,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { InboxItem } from '../domain/index.js';
import { boundHistory } from '../machines/history-bounds.js';
import { failedCondition } from './dynamodb-cancellation.js';
import { writeCheckpoint, type CheckpointBase } from './dynamodb-checkpoint-writer.js';
import { readNewestHistory } from './dynamodb-history-reader.js';
import { MAX_ITEM_BYTES } from './dynamodb-item-size.js';
import { splitLegacyConversation } from './dynamodb-legacy-conversation.js';
import { migrateLegacyConversation } from './dynamodb-legacy-migration.js';
import { acquireHead, releaseHead, renewHead } from './dynamodb-ownership.js';
import {
  headFromItem,
  headKey,
  inboxItemFromStored,
  inboxStoredItem,
  profileFromItem,
  profileItem,
  type StoredHead,
  type StoredItem,
} from './dynamodb-source-items.js';
import {
  CLAIM_SORT_KEY,
  CONSUMED_INBOX_SORT_KEY,
  CONVERSATION_SORT_KEY,
  HEAD_SORT_KEY,
  HISTORY_PREFIX,
  INBOX_PREFIX,
  PROFILE_PREFIX,
  WORK_INDEX,
  allWorkShards,
  claimPartitionKey,
  historySortKey,
  inboxSortKey,
  padNumber,
} from './dynamodb-table.js';
import { batchDelete, transactWrite, type TableClient } from './dynamodb-writes.js';
import { toEpochSeconds } from './dynamodb-items.js';
import { returnedNumber } from './dynamodb-returned-item.js';
import {
  defaultDynamoDbSourceStoreLimits,
  type DynamoDbSourceStoreLimits,
} from './dynamodb-source-limits.js';
import { OwnershipLostError } from './ownership-lost-error.js';
import { VersionConflictError } from './version-conflict-error.js';
import type {
  Checkpoint,
  HistoryWindow,
  LoadedSource,
  Ownership,
  SourceOwner,
  SourceStore,
  SourceSummary,
  StoredInboxItem,
  StoredProfile,
} from './source-store.js';

export interface DynamoDbSourceStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** How long a claimed event id is remembered (ms); default 7 days. */
  readonly claimTtlMs?: number;
  /**
   * How long what a source writes is kept (ms): the head expires this long after its last
   * checkpoint, each history page and profile this long after it was written. 0 or unset: never.
   */
  readonly conversationTtlMs?: number;
  /** Refuse items larger than this (bytes); default 350 KB. */
  readonly maxItemBytes?: number;
  /** Overrides of DynamoDB's and kaiwa's limits, so tests can reach them with small data. */
  readonly limits?: Partial<DynamoDbSourceStoreLimits>;
  readonly now?: () => number;
}

/** Heads remembered for the next checkpoint; older ones are read again when needed. */
const MAX_REMEMBERED_HEADS = 10_000;

/**
 * The source store on kaiwa's DynamoDB table (docs/persistence.md, "DynamoDB: the source
 * store"). A source is a head item, history pages and profiles in its partition, beside its
 * inbox items. `accept` and every checkpoint that consumes inbox items are one transaction;
 * a checkpoint that only adds a few small entries (a turn's closing tool entry) is one
 * conditional update of the head, whose tail holds them until the next transaction moves them
 * to a page. A load is one `GetItem` of the head and one `Query` of the newest pages.
 */
export class DynamoDbSourceStore implements SourceStore {
  private readonly table: TableClient;
  private readonly claimTtlMs: number;
  private readonly conversationTtlMs: number;
  private readonly maxItemBytes: number;
  private readonly limits: DynamoDbSourceStoreLimits;
  private readonly now: () => number;
  private readonly heads = new Map<string, CheckpointBase>();
  private sequence = 0;

  constructor(options: DynamoDbSourceStoreOptions) {
    this.table = { documents: DynamoDBDocumentClient.from(options.client), tableName: options.tableName };
    this.claimTtlMs = options.claimTtlMs ?? 7 * 24 * 3600_000;
    this.conversationTtlMs = options.conversationTtlMs ?? 0;
    this.maxItemBytes = options.maxItemBytes ?? MAX_ITEM_BYTES;
    this.limits = { ...defaultDynamoDbSourceStoreLimits, ...options.limits };
    this.now = options.now ?? Date.now;
  }

  async accept(item: InboxItem): Promise<boolean> {
    const now = this.now();
    try {
      await transactWrite(this.table.documents, {
        TransactItems: [
          {
            Put: {
              TableName: this.table.tableName,
              Item: {
                pk: claimPartitionKey(item.eventId),
                sk: CLAIM_SORT_KEY,
                claimedAt: now,
                expiresAt: toEpochSeconds(now + this.claimTtlMs),
              },
              // An expired claim that TTL has not deleted yet counts as gone.
              ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt <= :now',
              ExpressionAttributeNames: { '#pk': 'pk', '#expiresAt': 'expiresAt' },
              ExpressionAttributeValues: { ':now': toEpochSeconds(now) },
            },
          },
          {
            Put: {
              TableName: this.table.tableName,
              Item: inboxStoredItem(item, {
                sortKey: inboxSortKey(item.timestamp, this.arrivalKey(now), item.eventId),
                now,
              }),
            },
          },
        ],
      });
      return true;
    } catch (error) {
      if (failedCondition(error, 0)) return false;
      throw error;
    }
  }

  async inbox(sourceId: string, limit = Infinity): Promise<StoredInboxItem[]> {
    const waiting: StoredInboxItem[] = [];
    let consumed = new Set<string>();
    const pages = paginateQuery(
      { client: this.table.documents, ...(Number.isFinite(limit) && { pageSize: limit + 1 }) },
      {
        TableName: this.table.tableName,
        // `INBOX` (the consumed keys) sorts first, then the items in order.
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :inbox)',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': sourceId, ':inbox': CONSUMED_INBOX_SORT_KEY },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        if (item.sk === CONSUMED_INBOX_SORT_KEY)
          consumed = (item.keys as Set<string> | undefined) ?? consumed;
        else if (!consumed.has(String(item.sk))) waiting.push(inboxItemFromStored(item));
      }
      if (waiting.length >= limit) break;
    }
    // A checkpoint consumed these but stopped before deleting them: finish its work.
    if (consumed.size > 0) await this.deleteConsumed(sourceId, [...consumed]);
    return waiting.slice(0, limit);
  }

  async countAttempt(sourceId: string, key: string): Promise<void> {
    try {
      await this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: { pk: sourceId, sk: key },
          UpdateExpression: 'ADD #attempts :one',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#attempts': 'attempts', '#pk': 'pk' },
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
    } catch (error) {
      // Consumed meanwhile: nothing left to count.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  acquire(
    sourceId: string,
    owner: SourceOwner,
    isGone: (owner: SourceOwner) => boolean,
  ): Promise<Ownership | undefined> {
    return acquireHead(this.table, sourceId, owner, isGone, this.now());
  }

  renew(ownership: Ownership, heartbeatAt: number): Promise<void> {
    return renewHead(this.table, ownership, heartbeatAt);
  }

  async release(ownership: Ownership): Promise<void> {
    this.heads.delete(ownership.sourceId);
    await releaseHead(this.table, ownership);
  }

  async load(sourceId: string, window: HistoryWindow): Promise<LoadedSource> {
    const stored = await this.currentHead(sourceId);
    if (stored === undefined) return { head: undefined, history: [] };
    this.remember(sourceId, stored);
    if (isUntouched(stored)) return { head: undefined, history: [] };
    const candidates = await readNewestHistory(
      this.table,
      { ...stored, sourceId },
      window,
      toEpochSeconds(this.now()),
    );
    const entries = boundHistory(
      candidates.map((record) => record.entry),
      { maxEntries: window.maxEntries, maxBytes: window.maxBytes },
    );
    return { head: stored.head, history: candidates.slice(candidates.length - entries.length) };
  }

  async checkpoint(checkpoint: Checkpoint): Promise<number> {
    const { sourceId } = checkpoint.ownership;
    const base = await this.baseFor(checkpoint);
    const written = await writeCheckpoint(this.table, checkpoint, base, {
      now: this.now(),
      expiresAt: this.expiresAt(),
      limits: this.limits,
      maxItemBytes: this.maxItemBytes,
    });
    this.heads.set(sourceId, written.base);
    if (written.overflowKeys.length > 0) await this.deleteConsumed(sourceId, written.overflowKeys);
    return checkpoint.expectedVersion + 1;
  }

  async forget(ownership: Ownership, throughKey: string): Promise<void> {
    const { sourceId } = ownership;
    this.heads.delete(sourceId);
    let forgottenThrough: number;
    try {
      // First the tombstone: from here on nothing of the old history is read, even if the
      // deletes below are interrupted (the forget item stays in the inbox and runs again).
      const { Attributes } = await this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: headKey(sourceId),
          UpdateExpression:
            'SET #forgottenThrough = #lastSeq, #pagedThrough = #lastSeq, #busy = :false, #updatedAt = :now ' +
            'REMOVE #snapshot, #tail, #work',
          ConditionExpression: '#fence = :fence',
          ExpressionAttributeNames: {
            '#forgottenThrough': 'forgottenThrough',
            '#lastSeq': 'lastSeq',
            '#pagedThrough': 'pagedThrough',
            '#busy': 'busy',
            '#updatedAt': 'updatedAt',
            '#snapshot': 'snapshot',
            '#tail': 'tail',
            '#work': 'work',
            '#fence': 'fence',
          },
          ExpressionAttributeValues: { ':false': false, ':now': this.now(), ':fence': ownership.fence },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      forgottenThrough = Number(Attributes?.forgottenThrough);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new OwnershipLostError(sourceId, ownership.fence, returnedNumber(error.Item, 'fence'));
      }
      throw error;
    }
    const keysOf = (range: Pick<QueryCommandInput, 'KeyConditionExpression' | 'ExpressionAttributeValues'>) =>
      this.query({
        ...range,
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ProjectionExpression: '#pk, #sk',
        ConsistentRead: true,
      });
    const [pages, profiles] = await Promise.all([
      forgottenThrough > 0
        ? keysOf({
            KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :oldest AND :newest',
            ExpressionAttributeValues: {
              ':pk': sourceId,
              ':oldest': HISTORY_PREFIX,
              ':newest': historySortKey(forgottenThrough),
            },
          })
        : [],
      keysOf({
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :profiles)',
        ExpressionAttributeValues: { ':pk': sourceId, ':profiles': PROFILE_PREFIX },
      }),
    ]);
    await batchDelete(this.table.documents, this.table.tableName, [
      ...[...pages, ...profiles].map((item) => ({ pk: sourceId, sk: String(item.sk) })),
      { pk: sourceId, sk: CONVERSATION_SORT_KEY },
    ]);
    // The inbox last, up to the forget item itself; what was accepted after it stays.
    const inbox = await keysOf({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :through',
      ExpressionAttributeValues: { ':pk': sourceId, ':first': INBOX_PREFIX, ':through': throughKey },
    });
    await batchDelete(
      this.table.documents,
      this.table.tableName,
      inbox.map((item) => ({ pk: sourceId, sk: String(item.sk) })),
    );
  }

  async profiles(sourceId: string): Promise<StoredProfile[]> {
    const items = await this.query({
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :profiles)',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': sourceId, ':profiles': PROFILE_PREFIX },
      ConsistentRead: true,
    });
    return items.map(profileFromItem);
  }

  async saveProfile(ownership: Ownership, profile: StoredProfile): Promise<void> {
    try {
      await transactWrite(this.table.documents, {
        TransactItems: [
          {
            ConditionCheck: {
              TableName: this.table.tableName,
              Key: headKey(ownership.sourceId),
              ConditionExpression: '#fence = :fence',
              ExpressionAttributeNames: { '#fence': 'fence' },
              ExpressionAttributeValues: { ':fence': ownership.fence },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
          {
            Put: {
              TableName: this.table.tableName,
              Item: profileItem(ownership.sourceId, profile, { expiresAt: this.expiresAt() }),
            },
          },
        ],
      });
    } catch (error) {
      const reason = failedCondition(error, 0);
      if (reason)
        throw new OwnershipLostError(
          ownership.sourceId,
          ownership.fence,
          returnedNumber(reason.Item, 'fence'),
        );
      throw error;
    }
  }

  async sourcesWithWork(): Promise<string[]> {
    const perShard = await Promise.all(
      allWorkShards().map((shard) =>
        this.query({
          IndexName: WORK_INDEX,
          KeyConditionExpression: '#work = :shard',
          ExpressionAttributeNames: { '#work': 'work' },
          ExpressionAttributeValues: { ':shard': shard },
        }),
      ),
    );
    return [...new Set(perShard.flat().map((item) => String(item.pk)))];
  }

  /** A full scan: for the inspector and operators, never on a request path. */
  async listSources(): Promise<SourceSummary[]> {
    const heads = new Map<string, SourceSummary>();
    const inboxSizes = new Map<string, number>();
    const pages = paginateScan(
      { client: this.table.documents },
      {
        TableName: this.table.tableName,
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
        } else if (item.sk === HEAD_SORT_KEY || !heads.has(sourceId)) {
          const owner = item.sk === HEAD_SORT_KEY ? headFromItem(item).head.owner : undefined;
          heads.set(sourceId, {
            sourceId,
            version: Number(item.version),
            ...(owner && { owner }),
            busy: item.busy === true,
            inboxSize: 0,
            updatedAt: Number(item.updatedAt),
          });
        }
      }
    }
    return [...heads.values()].map((summary) => ({
      ...summary,
      inboxSize: inboxSizes.get(summary.sourceId) ?? 0,
    }));
  }

  /** The client belongs to the caller, who may share it: nothing to release here. */
  close(): Promise<void> {
    this.heads.clear();
    return Promise.resolve();
  }

  private async readHead(sourceId: string): Promise<StoredHead | undefined> {
    const item = await this.getItem(sourceId, HEAD_SORT_KEY);
    return item === undefined ? undefined : headFromItem(item);
  }

  private async getItem(pk: string, sk: string): Promise<StoredItem | undefined> {
    const { Item } = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: { pk, sk }, ConsistentRead: true }),
    );
    return Item;
  }

  /** What the checkpoint builds on: remembered from this store's last load or write, else read. */
  private async baseFor(checkpoint: Checkpoint): Promise<CheckpointBase> {
    const { ownership, expectedVersion } = checkpoint;
    const remembered = this.heads.get(ownership.sourceId);
    if (remembered?.version === expectedVersion) return remembered;
    const stored = await this.readHead(ownership.sourceId);
    if (stored?.head.fence !== ownership.fence) {
      throw new OwnershipLostError(ownership.sourceId, ownership.fence, stored?.head.fence);
    }
    if (stored.head.version !== expectedVersion) {
      throw new VersionConflictError(ownership.sourceId, expectedVersion, stored.head.version);
    }
    return this.remember(ownership.sourceId, stored);
  }

  private remember(sourceId: string, stored: StoredHead): CheckpointBase {
    const base: CheckpointBase = {
      version: stored.head.version,
      lastSeq: stored.head.lastSeq,
      pagedThrough: stored.pagedThrough,
      forgottenThrough: stored.forgottenThrough,
      tail: stored.tail,
    };
    this.heads.delete(sourceId);
    if (this.heads.size >= MAX_REMEMBERED_HEADS) this.heads.delete(this.heads.keys().next().value!);
    this.heads.set(sourceId, base);
    return base;
  }

  /**
   * The head, after migrating a first-wave conversation if the source still has one. Another
   * process may migrate it at the same moment: then the head it wrote is read.
   */
  private async currentHead(sourceId: string): Promise<StoredHead | undefined> {
    for (let attempt = 1; ; attempt++) {
      const stored = await this.readHead(sourceId);
      if (stored !== undefined && !isUntouched(stored)) return stored;
      const legacy = await this.getItem(sourceId, CONVERSATION_SORT_KEY);
      if (legacy === undefined) return stored;
      const migrated = await migrateLegacyConversation(this.table, splitLegacyConversation(legacy), {
        sourceId,
        fence: stored?.head.fence ?? 0,
        expiresAt: this.expiresAt(),
        pageJsonBytes: this.limits.pageJsonBytes,
      });
      if (!migrated && attempt >= 3)
        throw new Error(`source ${sourceId}: the first-wave conversation keeps changing`);
    }
  }

  /** Deletes inbox items a committed checkpoint consumed, then forgets their keys. */
  private async deleteConsumed(sourceId: string, keys: readonly string[]): Promise<void> {
    await batchDelete(
      this.table.documents,
      this.table.tableName,
      keys.map((sk) => ({ pk: sourceId, sk })),
    );
    await this.table.documents.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: { pk: sourceId, sk: CONSUMED_INBOX_SORT_KEY },
        UpdateExpression: 'DELETE #keys :keys',
        ExpressionAttributeNames: { '#keys': 'keys' },
        ExpressionAttributeValues: { ':keys': new Set(keys) },
      }),
    );
    try {
      await this.table.documents.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: { pk: sourceId, sk: CONSUMED_INBOX_SORT_KEY },
          ConditionExpression: 'attribute_not_exists(#keys)',
          ExpressionAttributeNames: { '#keys': 'keys' },
        }),
      );
    } catch (error) {
      // Another checkpoint listed more keys meanwhile: they are its to finish.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  private async query(input: Omit<QueryCommandInput, 'TableName'>) {
    const items: StoredItem[] = [];
    const pages = paginateQuery(
      { client: this.table.documents },
      { TableName: this.table.tableName, ...input },
    );
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  }

  private expiresAt(): number | undefined {
    return this.conversationTtlMs > 0 ? toEpochSeconds(this.now() + this.conversationTtlMs) : undefined;
  }

  /** Orders items accepted by this process within one millisecond (see `inboxSortKey`). */
  private arrivalKey(now: number): string {
    this.sequence = (this.sequence + 1) % 1_000_000;
    return `${padNumber(now, 15)}.${padNumber(this.sequence, 6)}`;
  }
}

/** A head that `acquire` created and no checkpoint has written yet. */
function isUntouched(stored: StoredHead): boolean {
  return stored.head.version === 0 && stored.head.snapshot === undefined && stored.forgottenThrough === 0;
}
