import { collectHistoryWindow, isMessage, type Clock, type InboxItem } from '../domain/index.js';
import { resolveSourceStoreOptions, type SourceStoreOptions } from './source-store-options.js';
import { admitToInbox } from './inbox-cap.js';
import { OwnershipLostError } from './ownership-lost-error.js';
import { inboxPosition, nextLastSeq } from './store-validation.js';
import { parseInboxItem, readableHistory, readProfile, storedInboxItem } from './stored-records.js';
import {
  byRecentUpdate,
  type Checkpoint,
  type ClosedTurn,
  type HistoryRecord,
  type HistoryWindow,
  type LoadedSource,
  type Ownership,
  type SourceHead,
  type SourceOwner,
  type SourceStore,
  type SourceSummary,
  type StoredInboxItem,
  type StoredProfile,
  type UnreadableRecord,
} from './source-store.js';
import { MessageTakenBackError } from './message-taken-back-error.js';
import { VersionConflictError } from './version-conflict-error.js';

interface InboxRow {
  readonly eventId: string;
  readonly json: string;
  readonly attempts: number;
  /** Its sender took the message back while it waited (an unsend was accepted). */
  readonly takenBack?: boolean;
}

/**
 * What a memory store keeps, as JSON text. Two `MemorySourceStore`s on one `MemorySourceTables`
 * behave like two processes on one database (the conformance suite's two writers).
 */
export class MemorySourceTables {
  readonly heads = new Map<string, string>();
  /** Per source: seq → entry JSON, in ascending seq (entries are appended in order). */
  readonly history = new Map<string, Map<number, string>>();
  /** Per source: position → item, in acceptance order. */
  readonly inbox = new Map<string, Map<number, InboxRow>>();
  readonly claims = new Map<string, number>();
  readonly profiles = new Map<string, Map<string, string>>();
  lastPosition = 0;
}

export interface MemorySourceStoreOptions extends SourceStoreOptions {
  /** Shared with another store instance to model two writers on one backend. */
  readonly tables?: MemorySourceTables;
}

/**
 * The source store in memory, for tests and benchmarks. Every value is kept as JSON and
 * parsed on every read, so it costs like a real store and shares no references with its
 * callers; every write stages its changes and applies them all at once, so a fault injected
 * between its steps leaves nothing half done.
 */
export class MemorySourceStore implements SourceStore {
  readonly tables: MemorySourceTables;
  private readonly clock: Clock;
  private readonly claimTtlMs: number;
  private readonly maxInbox: number;
  private readonly onWriteStep: (step: string) => void;
  private acceptsSincePrune = 0;

  constructor(options: MemorySourceStoreOptions = {}) {
    this.tables = options.tables ?? new MemorySourceTables();
    ({
      clock: this.clock,
      claimTtlMs: this.claimTtlMs,
      maxInbox: this.maxInbox,
      onWriteStep: this.onWriteStep,
    } = resolveSourceStoreOptions(options));
  }

  accept(item: InboxItem): Promise<boolean> {
    return this.run(() => {
      const now = this.clock.now();
      const claimedUntil = this.tables.claims.get(item.eventId);
      if (claimedUntil !== undefined && claimedUntil > now) return false;
      const waiting = this.tables.inbox.get(item.source.id) ?? new Map<number, InboxRow>();
      const last = lastOf(waiting);
      const admission = admitToInbox(
        item,
        { waiting: waiting.size, last: last && parseInboxItem(last[1].json).value },
        this.maxInbox,
      );
      const write = this.write('accept');
      write.step('claim', () => this.tables.claims.set(item.eventId, now + this.claimTtlMs));
      const json = JSON.stringify(admission.item);
      write.step('inbox', () => {
        const position = admission.kind === 'replace' ? last![0] : ++this.tables.lastPosition;
        mapOf(this.tables.inbox, item.source.id).set(position, {
          eventId: admission.item.eventId,
          json,
          attempts: 0,
        });
      });
      if (item.kind === 'unsend') {
        for (const [position, row] of waiting) {
          const stored = parseInboxItem(row.json).value;
          if (stored && isMessage(stored) && stored.messageId === item.messageId)
            write.step('inbox', () => waiting.set(position, { ...row, takenBack: true }));
        }
      }
      write.commit();
      this.pruneClaimsNowAndThen(now);
      return true;
    });
  }

  inbox(sourceId: string, limit = Infinity): Promise<StoredInboxItem[]> {
    return this.run(() =>
      [...(this.tables.inbox.get(sourceId) ?? [])].slice(0, limit).map(([position, row]) =>
        storedInboxItem({
          key: String(position),
          text: row.json,
          attempts: row.attempts,
          eventId: row.eventId,
          takenBack: row.takenBack === true,
        }),
      ),
    );
  }

  countAttempt(sourceId: string, key: string): Promise<void> {
    return this.run(() => {
      const inbox = this.tables.inbox.get(sourceId);
      const position = inboxPosition(key);
      const row = inbox?.get(position);
      if (!inbox || !row) return;
      const write = this.write('countAttempt');
      write.step('inbox', () => inbox.set(position, { ...row, attempts: row.attempts + 1 }));
      write.commit();
    });
  }

  acquire(
    sourceId: string,
    owner: SourceOwner,
    isGone: (owner: SourceOwner) => boolean,
  ): Promise<Ownership | undefined> {
    return this.run(() => {
      const now = this.clock.now();
      const head = this.head(sourceId) ?? newHead(sourceId, now);
      const current = head.owner;
      const free =
        !current ||
        current.ownerId === owner.ownerId ||
        current.heartbeatAt + current.leaseMs < now ||
        isGone(current);
      if (!free) return undefined;
      const fence = head.fence + 1;
      const write = this.write('acquire');
      write.step('head', () => this.putHead({ ...head, fence, owner }));
      write.commit();
      return {
        sourceId,
        ownerId: owner.ownerId,
        fence,
        version: head.version,
        ...(current && current.ownerId !== owner.ownerId && { previousOwner: current }),
      };
    });
  }

  renew(ownership: Ownership, heartbeatAt: number): Promise<void> {
    return this.run(() => {
      const head = this.ownedHead(ownership);
      const write = this.write('renew');
      write.step('head', () => this.putHead({ ...head, owner: { ...head.owner!, heartbeatAt } }));
      write.commit();
    });
  }

  release(ownership: Ownership): Promise<void> {
    return this.run(() => {
      const head = this.head(ownership.sourceId);
      if (!head || !owns(head, ownership)) return;
      const write = this.write('release');
      write.step('head', () => this.putHead(withoutOwner(head)));
      write.commit();
    });
  }

  load(sourceId: string, window: HistoryWindow): Promise<LoadedSource> {
    return this.run(() => {
      const unreadable: UnreadableRecord[] = [];
      const history = collectHistoryWindow(
        readableHistory(
          [...(this.tables.history.get(sourceId) ?? [])].reverse().map(([seq, text]) => ({ seq, text })),
          unreadable,
        ),
        (record) => ({ entry: record.entry, bytes: record.bytes }),
        window,
      ).map(({ seq, entry }): HistoryRecord => ({ seq, entry }));
      return { head: this.head(sourceId), history, ...(unreadable.length > 0 && { unreadable }) };
    });
  }

  checkpoint(checkpoint: Checkpoint): Promise<number> {
    return this.run(() => this.writeCheckpoint(checkpoint, false).version);
  }

  closeTurn(checkpoint: Checkpoint): Promise<ClosedTurn> {
    return this.run(() => this.writeCheckpoint(checkpoint, true));
  }

  /** One checkpoint write; `closing`: also release when the inbox is then empty. */
  private writeCheckpoint(checkpoint: Checkpoint, closing: boolean): ClosedTurn {
    const { ownership } = checkpoint;
    const head = this.ownedHead(ownership);
    if (head.version !== checkpoint.expectedVersion) {
      throw new VersionConflictError(ownership.sourceId, checkpoint.expectedVersion, head.version);
    }
    const lastSeq = nextLastSeq(ownership.sourceId, head.lastSeq, checkpoint.appended);
    const consumed = checkpoint.consumedKeys.map(inboxPosition);
    const inbox = this.tables.inbox.get(ownership.sourceId);
    const takenBack = checkpoint.answering
      ? consumed.filter((position) => inbox?.get(position)?.takenBack)
      : [];
    if (takenBack.length > 0) throw new MessageTakenBackError(ownership.sourceId, takenBack.map(String));
    const version = head.version + 1;
    const write = this.write('checkpoint');
    const history = mapOf(this.tables.history, ownership.sourceId);
    for (const record of checkpoint.appended) {
      const json = JSON.stringify(record.entry);
      write.step('history', () => history.set(record.seq, json));
    }
    for (const seq of checkpoint.removedSeqs) write.step('removed', () => history.delete(seq));
    for (const position of consumed) write.step('inbox', () => inbox?.delete(position));
    let released = false;
    write.step('head', () => {
      const written = {
        ...head,
        version,
        machineVersion: checkpoint.machineVersion,
        snapshot: checkpoint.snapshot,
        lastSeq,
        busy: checkpoint.busy,
        updatedAt: this.clock.now(),
      };
      // After the consumed items went: what is left decides a closing release.
      released = checkpoint.release === true || (closing && !inbox?.size);
      this.putHead(released ? withoutOwner(written) : written);
    });
    write.commit();
    this.dropEmpty(ownership.sourceId);
    return { version, released };
  }

  forget(ownership: Ownership, throughKey: string): Promise<void> {
    return this.run(() => {
      const head = this.ownedHead(ownership);
      const through = inboxPosition(throughKey);
      const write = this.write('forget');
      write.step('history', () => this.tables.history.delete(ownership.sourceId));
      write.step('profiles', () => this.tables.profiles.delete(ownership.sourceId));
      const inbox = this.tables.inbox.get(ownership.sourceId);
      write.step('inbox', () => {
        for (const position of inbox?.keys() ?? []) if (position <= through) inbox?.delete(position);
      });
      write.step('head', () => {
        const { snapshot: _forgotten, ...tombstone } = head;
        this.putHead({ ...tombstone, version: head.version + 1, busy: false, updatedAt: this.clock.now() });
      });
      write.commit();
      this.dropEmpty(ownership.sourceId);
    });
  }

  profiles(sourceId: string): Promise<StoredProfile[]> {
    return this.run(() =>
      [...(this.tables.profiles.get(sourceId)?.values() ?? [])].flatMap((json) => readProfile(json)),
    );
  }

  saveProfile(ownership: Ownership, profile: StoredProfile): Promise<void> {
    return this.run(() => {
      this.ownedHead(ownership);
      const json = JSON.stringify(profile);
      const write = this.write('saveProfile');
      write.step('profile', () => mapOf(this.tables.profiles, ownership.sourceId).set(profile.userId, json));
      write.commit();
    });
  }

  sourcesWithWork(): Promise<string[]> {
    return this.run(() => {
      const busy = [...this.tables.heads.keys()].filter((sourceId) => this.head(sourceId)?.busy);
      return [...new Set([...this.tables.inbox.keys(), ...busy])];
    });
  }

  listSources(limit = Infinity): Promise<SourceSummary[]> {
    return this.run(() => {
      const sourceIds = new Set([...this.tables.heads.keys(), ...this.tables.inbox.keys()]);
      const summaries = [...sourceIds].map((sourceId): SourceSummary => {
        const head = this.head(sourceId);
        return {
          sourceId,
          version: head?.version ?? 0,
          ...(head?.owner && { owner: head.owner }),
          busy: head?.busy ?? false,
          inboxSize: this.tables.inbox.get(sourceId)?.size ?? 0,
          updatedAt: head?.updatedAt ?? 0,
        };
      });
      return summaries.sort(byRecentUpdate).slice(0, limit);
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Runs a synchronous body as the async port promises: a throw becomes a rejection. */
  private run<T>(body: () => T): Promise<T> {
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Stages a write's changes; `commit` applies them all, so a fault before it changes nothing. */
  private write(operation: string) {
    const changes: (() => void)[] = [];
    return {
      step: (name: string, change: () => void) => {
        this.onWriteStep(`${operation}:${name}`);
        changes.push(change);
      },
      commit: () => {
        this.onWriteStep(`${operation}:commit`);
        for (const change of changes) change();
        this.onWriteStep(`${operation}:committed`);
      },
    };
  }

  private head(sourceId: string): SourceHead | undefined {
    const json = this.tables.heads.get(sourceId);
    return json === undefined ? undefined : (JSON.parse(json) as SourceHead);
  }

  private putHead(head: SourceHead) {
    this.tables.heads.set(head.sourceId, JSON.stringify(head));
  }

  /** The head, if `ownership` still holds it; otherwise `OwnershipLostError`. */
  private ownedHead(ownership: Ownership): SourceHead {
    const head = this.head(ownership.sourceId);
    if (!head || !owns(head, ownership)) {
      throw new OwnershipLostError(ownership.sourceId, ownership.fence, head?.fence, head?.owner?.ownerId);
    }
    return head;
  }

  private dropEmpty(sourceId: string) {
    if (this.tables.inbox.get(sourceId)?.size === 0) this.tables.inbox.delete(sourceId);
    if (this.tables.history.get(sourceId)?.size === 0) this.tables.history.delete(sourceId);
  }

  private pruneClaimsNowAndThen(now: number) {
    if (++this.acceptsSincePrune < 1000) return;
    this.acceptsSincePrune = 0;
    for (const [eventId, expiresAt] of this.tables.claims)
      if (expiresAt <= now) this.tables.claims.delete(eventId);
  }
}

function owns(head: SourceHead, ownership: Ownership): boolean {
  return head.fence === ownership.fence && head.owner?.ownerId === ownership.ownerId;
}

function newHead(sourceId: string, now: number): SourceHead {
  return { sourceId, version: 0, fence: 0, machineVersion: 0, lastSeq: 0, busy: false, updatedAt: now };
}

function withoutOwner(head: SourceHead): SourceHead {
  const { owner: _released, ...rest } = head;
  return rest;
}

function mapOf<K, V>(maps: Map<string, Map<K, V>>, sourceId: string): Map<K, V> {
  let map = maps.get(sourceId);
  if (!map) maps.set(sourceId, (map = new Map<K, V>()));
  return map;
}

/** The newest entry of a map kept in insertion order (an inbox holds at most `maxInbox + 1`). */
function lastOf<K, V>(map: Map<K, V>): [K, V] | undefined {
  let last: [K, V] | undefined;
  for (const entry of map) last = entry;
  return last;
}
