import {
  collectHistoryWindow,
  defaultHistoryLimits,
  boundHistory,
  isJsonObject,
  type HistoryEntry,
  type HistoryLimits,
  type InboxItem,
  type JsonObject,
} from '../domain/index.js';
import type { ConversationStore, StoredConversation } from './conversation-store.js';
import { OwnershipLostError } from './ownership-lost-error.js';
import type {
  Checkpoint,
  HistoryRecord,
  HistoryWindow,
  LoadedSource,
  Ownership,
  SourceHead,
  SourceOwner,
  SourceStore,
  SourceSummary,
  StoredInboxItem,
  StoredProfile,
} from './source-store.js';
import { nextLastSeq } from './store-validation.js';
import { VersionConflictError } from './version-conflict-error.js';

/** The document stored as a first-wave conversation's snapshot: head, history and profiles in one. */
interface SourceDocument {
  readonly kaiwa: 2;
  readonly head: Omit<SourceHead, 'sourceId' | 'busy' | 'updatedAt'>;
  readonly history: readonly HistoryRecord[];
  readonly profiles: Readonly<Record<string, StoredProfile>>;
  /** Drain attempts by inbox key (event id), while the item waits. */
  readonly attempts?: Readonly<Record<string, number>>;
}

export interface SnapshotSourceStoreOptions {
  /** What the stored history keeps (the item must stay below the backend's size limit). */
  readonly historyLimits?: HistoryLimits;
  readonly now?: () => number;
  /** Test seam, as in every source store: called before each write reaches the inner store. */
  readonly onWriteStep?: (step: string) => void;
}

/**
 * The source store port over a first-wave `ConversationStore` (the directory-of-files and
 * DynamoDB stores): each source is still one record holding head, history and profiles,
 * rewritten whole by every write, with the version check of the underlying store serialising
 * the writers; the fence, the owner and the head's version live in the record. It keeps the
 * Lambda worker and `STORE=file` on the new runtime until their native adapters replace it
 * (docs/persistence.md); it has the port's semantics, not its costs. Inbox keys are event ids.
 */
export class SnapshotSourceStore implements SourceStore {
  private readonly historyLimits: HistoryLimits;
  private readonly now: () => number;
  private readonly onWriteStep: (step: string) => void;

  constructor(
    private readonly inner: ConversationStore,
    options: SnapshotSourceStoreOptions = {},
  ) {
    this.historyLimits = options.historyLimits ?? defaultHistoryLimits;
    this.now = options.now ?? Date.now;
    this.onWriteStep = options.onWriteStep ?? (() => undefined);
  }

  async accept(item: InboxItem): Promise<boolean> {
    this.onWriteStep('accept:prepare');
    this.onWriteStep('accept:commit');
    return this.inner.accept(item);
  }

  async inbox(sourceId: string, limit = Infinity): Promise<StoredInboxItem[]> {
    const [items, stored] = await Promise.all([this.inner.inbox(sourceId), this.inner.load(sourceId)]);
    const attempts = (stored && documentOf(stored).attempts) ?? {};
    return items
      .slice(0, limit)
      .map((item) => ({ key: item.eventId, item, attempts: attempts[item.eventId] ?? 0 }));
  }

  async countAttempt(sourceId: string, key: string): Promise<void> {
    if (!(await this.inner.inbox(sourceId)).some((item) => item.eventId === key)) return;
    await this.update(sourceId, 'countAttempt', (document) => {
      const attempts = document.attempts ?? {};
      return { document: { ...document, attempts: { ...attempts, [key]: (attempts[key] ?? 0) + 1 } } };
    });
  }

  acquire(sourceId: string, owner: SourceOwner, isGone: (owner: SourceOwner) => boolean) {
    return this.update(sourceId, 'acquire', (document) => {
      const current = document.head.owner;
      const free =
        !current ||
        current.ownerId === owner.ownerId ||
        current.heartbeatAt + current.leaseMs < this.now() ||
        isGone(current);
      if (!free) return { result: undefined };
      const fence = document.head.fence + 1;
      const ownership: Ownership = {
        sourceId,
        ownerId: owner.ownerId,
        fence,
        version: document.head.version,
        ...(current && current.ownerId !== owner.ownerId && { previousOwner: current }),
      };
      return { document: { ...document, head: { ...document.head, fence, owner } }, result: ownership };
    });
  }

  renew(ownership: Ownership, heartbeatAt: number): Promise<void> {
    return this.update(ownership.sourceId, 'renew', (document) => {
      const owner = ownedBy(document, ownership);
      return { document: { ...document, head: { ...document.head, owner: { ...owner, heartbeatAt } } } };
    });
  }

  release(ownership: Ownership): Promise<void> {
    return this.update(ownership.sourceId, 'release', (document) => {
      const owner = document.head.owner;
      if (document.head.fence !== ownership.fence || owner?.ownerId !== ownership.ownerId) return {};
      const { owner: _released, ...head } = document.head;
      return { document: { ...document, head } };
    });
  }

  async load(sourceId: string, window: HistoryWindow): Promise<LoadedSource> {
    const stored = await this.inner.load(sourceId);
    if (!stored) return { head: undefined, history: [] };
    const document = documentOf(stored);
    const newestFirst = [...document.history].reverse();
    const history = collectHistoryWindow(
      newestFirst,
      (record) => ({ entry: record.entry, bytes: Buffer.byteLength(JSON.stringify(record.entry), 'utf8') }),
      window,
    );
    return { head: headOf(stored, document), history };
  }

  checkpoint(checkpoint: Checkpoint): Promise<number> {
    const { ownership } = checkpoint;
    return this.update(
      ownership.sourceId,
      'checkpoint',
      (document) => {
        ownedBy(document, ownership);
        if (document.head.version !== checkpoint.expectedVersion) {
          throw new VersionConflictError(
            ownership.sourceId,
            checkpoint.expectedVersion,
            document.head.version,
          );
        }
        const lastSeq = nextLastSeq(ownership.sourceId, document.head.lastSeq, checkpoint.appended);
        const removed = new Set(checkpoint.removedSeqs);
        const kept = [
          ...document.history.filter((record) => !removed.has(record.seq)),
          ...checkpoint.appended,
        ];
        const version = document.head.version + 1;
        const { owner, ...unowned } = document.head;
        return {
          document: {
            ...document,
            head: {
              ...(checkpoint.release ? unowned : { ...unowned, owner }),
              version,
              machineVersion: checkpoint.machineVersion,
              snapshot: checkpoint.snapshot,
              lastSeq,
            },
            history: boundRecords(kept, this.historyLimits),
            attempts: withoutKeys(document.attempts, checkpoint.consumedKeys),
          },
          result: version,
          busy: checkpoint.busy,
          consumed: checkpoint.consumedKeys,
        };
      },
      { busy: checkpoint.busy },
    );
  }

  async forget(ownership: Ownership, throughKey: string): Promise<void> {
    const items = await this.inner.inbox(ownership.sourceId);
    const through = items.findIndex((item) => item.eventId === throughKey);
    const consumed = items.slice(0, through + 1).map((item) => item.eventId);
    await this.update(ownership.sourceId, 'forget', (document) => {
      ownedBy(document, ownership);
      const { snapshot: _forgotten, ...head } = document.head;
      return {
        document: {
          ...document,
          head: { ...head, version: head.version + 1 },
          history: [],
          profiles: {},
          attempts: withoutKeys(document.attempts, consumed),
        },
        busy: false,
        consumed,
      };
    });
  }

  async profiles(sourceId: string): Promise<StoredProfile[]> {
    const stored = await this.inner.load(sourceId);
    return stored ? Object.values(documentOf(stored).profiles) : [];
  }

  saveProfile(ownership: Ownership, profile: StoredProfile): Promise<void> {
    return this.update(ownership.sourceId, 'saveProfile', (document) => {
      ownedBy(document, ownership);
      return { document: { ...document, profiles: { ...document.profiles, [profile.userId]: profile } } };
    });
  }

  sourcesWithWork(): Promise<string[]> {
    return this.inner.sourcesWithWork();
  }

  async listSources(): Promise<SourceSummary[]> {
    const sourceIds = await this.inner.listSources();
    return Promise.all(
      sourceIds.map(async (sourceId) => {
        const [stored, inbox] = await Promise.all([this.inner.load(sourceId), this.inner.inbox(sourceId)]);
        const head = stored && headOf(stored, documentOf(stored));
        return {
          sourceId,
          version: head?.version ?? 0,
          ...(head?.owner && { owner: head.owner }),
          busy: head?.busy ?? false,
          inboxSize: inbox.length,
          updatedAt: head?.updatedAt ?? 0,
        };
      }),
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Read, change, write back under the record's version; a writer that got there first makes
   * it read again (the change's own checks then see what that writer did).
   */
  private async update<T = void>(
    sourceId: string,
    operation: string,
    change: (document: SourceDocument) => {
      document?: SourceDocument;
      result?: T;
      busy?: boolean;
      consumed?: readonly string[];
    },
    options: { busy?: boolean } = {},
  ): Promise<T> {
    for (;;) {
      const stored = await this.inner.load(sourceId);
      const outcome = change(stored ? documentOf(stored) : emptyDocument());
      if (!outcome.document) return outcome.result as T;
      this.onWriteStep(`${operation}:prepare`);
      this.onWriteStep(`${operation}:commit`);
      try {
        await this.inner.save({
          sourceId,
          expectedVersion: stored?.version ?? 0,
          machineVersion: outcome.document.head.machineVersion,
          snapshot: outcome.document as unknown as JsonObject,
          busy: outcome.busy ?? options.busy ?? stored?.busy ?? false,
          consumedEventIds: outcome.consumed ?? [],
        });
        return outcome.result as T;
      } catch (error) {
        if (!VersionConflictError.isInstance(error) || error.sourceId !== sourceId) throw error;
        if (error.expectedVersion !== (stored?.version ?? 0)) throw error;
      }
    }
  }
}

function emptyDocument(): SourceDocument {
  return {
    kaiwa: 2,
    head: { version: 0, fence: 0, machineVersion: 0, lastSeq: 0 },
    history: [],
    profiles: {},
  };
}

/**
 * The record's document; a first-wave record (a bare machine snapshot, history inline) becomes
 * a head holding that snapshot at its machine version, which the snapshot codec migrates.
 */
function documentOf(stored: StoredConversation): SourceDocument {
  const snapshot = stored.snapshot;
  if (snapshot.kaiwa === 2 && isJsonObject(snapshot.head)) return snapshot as unknown as SourceDocument;
  return {
    kaiwa: 2,
    head: { version: stored.version, fence: 0, machineVersion: stored.machineVersion, snapshot, lastSeq: 0 },
    history: [],
    profiles: {},
  };
}

function headOf(stored: StoredConversation, document: SourceDocument): SourceHead {
  return { ...document.head, sourceId: stored.sourceId, busy: stored.busy, updatedAt: stored.updatedAt };
}

function ownedBy(document: SourceDocument, ownership: Ownership): SourceOwner {
  const owner = document.head.owner;
  if (document.head.fence !== ownership.fence || owner?.ownerId !== ownership.ownerId) {
    throw new OwnershipLostError(ownership.sourceId, ownership.fence, document.head.fence, owner?.ownerId);
  }
  return owner;
}

/** The stored history within the limits, by the same rule as in memory and on load. */
function boundRecords(records: readonly HistoryRecord[], limits: HistoryLimits): HistoryRecord[] {
  const entries = records.map((record) => Object.assign({ ...record.entry }, { seq: record.seq }));
  return boundHistory(entries as (HistoryEntry & { seq: number })[], limits).map(({ seq, ...entry }) => ({
    seq,
    entry: entry,
  }));
}

function withoutKeys(
  attempts: Readonly<Record<string, number>> | undefined,
  keys: readonly string[],
): Record<string, number> {
  return Object.fromEntries(Object.entries(attempts ?? {}).filter(([key]) => !keys.includes(key)));
}
