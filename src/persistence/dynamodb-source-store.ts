import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { resolveSourceStoreOptions, type SourceStoreOptions } from './source-store-options.js';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { HistoryWindowCollector, setMostRecent, type Clock, type InboxItem } from '../domain/index.js';
import { failedCondition } from './dynamodb-cancellation.js';
import { writeCheckpoint, type CheckpointBase } from './dynamodb-checkpoint-writer.js';
import { finishForget, forgetSource } from './dynamodb-forget.js';
import { DynamoDbInboxWriter } from './dynamodb-inbox-writer.js';
import { checkInboxKey, countInboxAttempt, deleteConsumed, readInbox } from './dynamodb-inbox.js';
import { pageKeysBelow, readNewestHistory } from './dynamodb-history-reader.js';
import { MAX_ITEM_BYTES } from './dynamodb-item-size.js';
import { migrateLegacyConversation } from './dynamodb-legacy-migration.js';
import { acquireHead, ownedBy, releaseHead, renewHead } from './dynamodb-ownership.js';
import { lostOwnership } from './dynamodb-returned-item.js';
import {
  defaultDynamoDbSourceStoreLimits,
  type DynamoDbSourceStoreLimits,
} from './dynamodb-source-limits.js';
import { listSources, sourcesWithWork } from './dynamodb-source-listing.js';
import {
  headFromItem,
  headKey,
  profileFromItem,
  profileItem,
  type StoredHead,
  type StoredItem,
} from './dynamodb-source-items.js';
import { CONVERSATION_SORT_KEY, HEAD_SORT_KEY, PROFILE_PREFIX, toEpochSeconds } from './dynamodb-table.js';
import { writeSteps } from './dynamodb-write-steps.js';
import { batchDelete, transactWrite, type TableClient } from './dynamodb-writes.js';
import { OwnershipLostError } from './ownership-lost-error.js';
import {
  type Checkpoint,
  type HistoryRecord,
  type HistoryWindow,
  type LoadedSource,
  type Ownership,
  type SourceOwner,
  type SourceStore,
  type SourceSummary,
  type StoredInboxItem,
  type StoredProfile,
  type UnreadableRecord,
} from './source-store.js';
import { VersionConflictError } from './version-conflict-error.js';

export interface DynamoDbSourceStoreOptions extends SourceStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /**
   * How long what a source writes is kept (ms): the head expires this long after its last
   * checkpoint, each history page and profile this long after it was written. 0 or unset: never.
   */
  readonly conversationTtlMs?: number;
  /** Refuse items larger than this (bytes); default 350 KB. */
  readonly maxItemBytes?: number;
  /** Overrides of DynamoDB's and kaiwa's limits, so tests reach them with small data. */
  readonly limits?: Partial<DynamoDbSourceStoreLimits>;
  /**
   * Keep the sparse work index that `sourcesWithWork` reads (default true): the long-running
   * host's recovery needs it. Off on Lambda, where the work queue says which source has work
   * and every index entry written or removed would bill a write unit (docs/persistence.md,
   * "The work index").
   */
  readonly workIndex?: boolean;
}

/** Heads remembered for the next checkpoint; older ones are read again when needed. */
const MAX_REMEMBERED_HEADS = 10_000;

/**
 * The source store on kaiwa's DynamoDB table (docs/persistence.md, "DynamoDB"). A source is a
 * head item, history pages and profiles in its partition, beside its inbox items. `accept` and
 * every checkpoint that consumes inbox items are one transaction; a checkpoint that only adds
 * a few small entries (a turn's closing tool entry) is one conditional update of the head, whose
 * tail holds them until the next transaction moves them to a page. A load is one `GetItem` of
 * the head and one `Query` of the newest pages.
 *
 * @example
 * const store = new DynamoDbSourceStore({ client: createDynamoDbClient(settings), tableName: 'kaiwa' });
 */
export class DynamoDbSourceStore implements SourceStore {
  private readonly table: TableClient;
  private readonly conversationTtlMs: number;
  private readonly maxItemBytes: number;
  private readonly limits: DynamoDbSourceStoreLimits;
  private readonly clock: Clock;
  private readonly onWriteStep: (step: string) => void;
  private readonly workIndex: boolean;
  /** What the last load or checkpoint of each source left, so the next checkpoint reads nothing. */
  private readonly heads = new Map<string, CheckpointBase>();
  private readonly inboxWriter: DynamoDbInboxWriter;

  constructor(options: DynamoDbSourceStoreOptions) {
    this.table = { documents: DynamoDBDocumentClient.from(options.client), tableName: options.tableName };
    const resolved = resolveSourceStoreOptions(options);
    ({ clock: this.clock, onWriteStep: this.onWriteStep } = resolved);
    this.conversationTtlMs = options.conversationTtlMs ?? 0;
    this.maxItemBytes = options.maxItemBytes ?? MAX_ITEM_BYTES;
    this.limits = { ...defaultDynamoDbSourceStoreLimits, ...options.limits };
    this.workIndex = options.workIndex ?? true;
    this.inboxWriter = new DynamoDbInboxWriter(this.table, { ...resolved, workIndex: this.workIndex });
  }

  accept(item: InboxItem): Promise<boolean> {
    return this.inboxWriter.accept(item);
  }

  inbox(sourceId: string, limit = Infinity): Promise<StoredInboxItem[]> {
    return readInbox(this.table, sourceId, limit);
  }

  countAttempt(sourceId: string, key: string): Promise<void> {
    return countInboxAttempt(this.table, sourceId, key, writeSteps(this.onWriteStep, 'countAttempt'));
  }

  acquire(
    sourceId: string,
    owner: SourceOwner,
    isGone: (owner: SourceOwner) => boolean,
  ): Promise<Ownership | undefined> {
    return acquireHead(this.table, sourceId, owner, isGone, {
      now: this.clock.now(),
      steps: writeSteps(this.onWriteStep, 'acquire'),
    });
  }

  renew(ownership: Ownership, heartbeatAt: number): Promise<void> {
    return renewHead(this.table, ownership, heartbeatAt, writeSteps(this.onWriteStep, 'renew'));
  }

  async release(ownership: Ownership): Promise<void> {
    this.heads.delete(ownership.sourceId);
    await releaseHead(this.table, ownership, writeSteps(this.onWriteStep, 'release'));
  }

  async load(sourceId: string, window: HistoryWindow): Promise<LoadedSource> {
    const stored = await this.currentHead(sourceId);
    if (stored === undefined) return { head: undefined, history: [] };
    this.remember(sourceId, stored);
    const collector = new HistoryWindowCollector<HistoryRecord>(window);
    const unreadable: UnreadableRecord[] = [];
    if (stored.unreadableSnapshot !== undefined)
      unreadable.push({ record: 'snapshot', error: stored.unreadableSnapshot });
    const now = this.nowSeconds();
    await readNewestHistory(this.table, { ...stored, sourceId }, collector, window, now, unreadable);
    return { head: stored.head, history: collector.window(), ...(unreadable.length > 0 && { unreadable }) };
  }

  async checkpoint(checkpoint: Checkpoint): Promise<number> {
    const { sourceId } = checkpoint.ownership;
    const steps = writeSteps(this.onWriteStep, 'checkpoint');
    const written = await writeCheckpoint(this.table, checkpoint, await this.baseFor(checkpoint), {
      now: this.clock.now(),
      expiresAt: this.expiresAt(),
      limits: this.limits,
      maxItemBytes: this.maxItemBytes,
      workIndex: this.workIndex,
      steps,
    });
    this.heads.set(sourceId, written.base);
    if (written.overflowKeys.length > 0) {
      steps.after('inbox');
      await deleteConsumed(this.table, sourceId, written.overflowKeys);
    }
    return checkpoint.expectedVersion + 1;
  }

  async forget(ownership: Ownership, throughKey: string): Promise<void> {
    checkInboxKey(throughKey);
    this.heads.delete(ownership.sourceId);
    await forgetSource(this.table, ownership, throughKey, {
      now: this.clock.now(),
      transactionActions: this.limits.transactionActions,
      steps: writeSteps(this.onWriteStep, 'forget'),
    });
  }

  async profiles(sourceId: string): Promise<StoredProfile[]> {
    const [head, { Items }] = await Promise.all([
      this.readHead(sourceId),
      this.table.documents.send(
        new QueryCommand({
          TableName: this.table.tableName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :profiles)',
          ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
          ExpressionAttributeValues: { ':pk': sourceId, ':profiles': PROFILE_PREFIX },
          ConsistentRead: true,
        }),
      ),
    ]);
    // An interrupted forget: its profiles are gone as far as anyone can tell.
    if (head?.forgetThrough !== undefined) {
      await finishForget(this.table, sourceId, head.forgetThrough);
      return [];
    }
    return (Items ?? []).flatMap(profileFromItem);
  }

  async saveProfile(ownership: Ownership, profile: StoredProfile): Promise<void> {
    try {
      await writeSteps(this.onWriteStep, 'saveProfile').commit(() =>
        transactWrite(this.table.documents, {
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.table.tableName,
                Key: headKey(ownership.sourceId),
                ...ownedBy(ownership, {}),
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
        }),
      );
    } catch (error) {
      const reason = failedCondition(error, 0);
      if (reason) throw lostOwnership(ownership, reason.Item) ?? error;
      throw error;
    }
  }

  /**
   * Deletes the history pages that lie wholly below the window a load would return: old
   * entries leave this way when the table keeps no TTL (`conversationTtlMs` 0), from an
   * operator's job, never from a turn. With a TTL, DynamoDB deletes old pages for free.
   * Returns how many pages went.
   */
  async compactHistory(sourceId: string, window: HistoryWindow): Promise<number> {
    const stored = await this.readHead(sourceId);
    if (stored === undefined) return 0;
    const collector = new HistoryWindowCollector<HistoryRecord>(window);
    await readNewestHistory(this.table, { ...stored, sourceId }, collector, window, this.nowSeconds());
    const oldestKept = collector.window()[0]?.seq;
    if (oldestKept === undefined) return 0;
    const keys = await pageKeysBelow(this.table, sourceId, oldestKept);
    await batchDelete(
      this.table.documents,
      this.table.tableName,
      keys.map((sk) => ({ pk: sourceId, sk })),
    );
    return keys.length;
  }

  sourcesWithWork(): Promise<string[]> {
    if (!this.workIndex) {
      return Promise.reject(
        new Error('this store keeps no work index (workIndex: false): it cannot list sources with work'),
      );
    }
    return sourcesWithWork(this.table);
  }

  listSources(limit?: number): Promise<SourceSummary[]> {
    return listSources(this.table, limit);
  }

  /** The client belongs to the caller, who may share it: only this store's memory goes. */
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

  /**
   * The head, after finishing an interrupted forget and migrating a first-wave conversation if
   * the source still has one. Another process may migrate it at the same moment: then the head
   * it wrote is read.
   */
  private async currentHead(sourceId: string): Promise<StoredHead | undefined> {
    for (let attempt = 1; ; attempt++) {
      const stored = await this.readHead(sourceId);
      if (stored?.forgetThrough !== undefined) await finishForget(this.table, sourceId, stored.forgetThrough);
      if (stored !== undefined && !isUntouched(stored)) return stored;
      const legacy = await this.getItem(sourceId, CONVERSATION_SORT_KEY);
      if (legacy === undefined) return stored;
      const migrated = await migrateLegacyConversation(this.table, legacy, {
        fence: stored?.head.fence ?? 0,
        expiresAt: this.expiresAt(),
        pageJsonBytes: this.limits.pageJsonBytes,
        transactionActions: this.limits.transactionActions,
        workIndex: this.workIndex,
      });
      if (!migrated && attempt >= 3)
        throw new Error(`source ${sourceId}: its first-wave conversation keeps changing`);
    }
  }

  /** What the checkpoint builds on: remembered from this store's last load or write, else read. */
  private async baseFor(checkpoint: Checkpoint): Promise<CheckpointBase> {
    const { ownership, expectedVersion } = checkpoint;
    const remembered = this.heads.get(ownership.sourceId);
    if (remembered?.version === expectedVersion) return remembered;
    const stored = await this.readHead(ownership.sourceId);
    const { fence, ownerId } = { fence: stored?.head.fence, ownerId: stored?.head.owner?.ownerId };
    if (stored === undefined || fence !== ownership.fence || ownerId !== ownership.ownerId) {
      throw new OwnershipLostError(ownership.sourceId, ownership.fence, fence, ownerId);
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
      ...(stored.unreadableTail !== undefined && { unreadableTail: true }),
    };
    setMostRecent(this.heads, sourceId, base, MAX_REMEMBERED_HEADS);
    return base;
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  private expiresAt(): number | undefined {
    return this.conversationTtlMs > 0 ? toEpochSeconds(this.clock.now() + this.conversationTtlMs) : undefined;
  }
}

/** A head that `acquire` created and no checkpoint has written yet. */
function isUntouched(stored: StoredHead): boolean {
  return stored.head.version === 0 && stored.head.snapshot === undefined && stored.forgottenThrough === 0;
}
