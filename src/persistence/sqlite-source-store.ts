import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { collectHistoryWindow, isMessage, type Clock, type InboxItem } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import { resolveSourceStoreOptions, type SourceStoreOptions } from './source-store-options.js';
import { admitToInbox } from './inbox-cap.js';
import { OwnershipLostError } from './ownership-lost-error.js';
import { MessageTakenBackError } from './message-taken-back-error.js';
import {
  byRecentUpdate,
  type AcceptedAndAcquired,
  type Checkpoint,
  type ClosedTurn,
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
import {
  holdProcessLock,
  isBusy,
  ProcessLockBusyError,
  readHolder,
  recordHolder,
} from './sqlite-process-lock.js';
import { prepareDatabase } from './sqlite-schema.js';
import { settled } from './settled.js';
import { SqliteWriteBatch } from './sqlite-write-batch.js';
import { openSqliteFile, rollBack } from './sqlite-file.js';
import {
  headOf,
  ownerOf,
  prepareStatements,
  type HeadRow,
  type HistoryRow,
  type InboxRow,
  type InboxTailRow,
  type OwnerRow,
  type SqliteStatements,
} from './sqlite-statements.js';
import { importFileStore, type FileStoreImport } from './file-store-import.js';
import { StoreInUseError } from './store-in-use-error.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { RetentionSweep, type RetentionRow, type SqliteRetentionOptions } from './sqlite-retention.js';
import { inboxPosition, nextLastSeq } from './store-validation.js';
import { parseInboxItem, readableHistory, readProfile, storedInboxItem } from './stored-records.js';
import { VersionConflictError } from './version-conflict-error.js';

export interface SqliteSourceStoreOptions extends SourceStoreOptions {
  /** The database file, e.g. `DATA_DIR/kaiwa.db`. */
  readonly file: string;
  /**
   * A directory written by the first wave's file store (`DATA_DIR`): imported once into a new
   * database, then moved aside (see `importFileStore`).
   */
  readonly importFileStoreFrom?: string;
  /** How long a write waits for another connection's transaction (ms; default 1,000). */
  readonly busyTimeoutMs?: number;
  /**
   * Expired claims are deleted when the store opens, then a slice of `claimsPrunedPerStep`
   * claims (in key order, round and round) at most once per this (ms; default 10 s): an accept
   * never scans a week of claims (a million take 110–170 ms). An expired claim still there counts
   * as none; pruning only frees the space.
   */
  readonly claimPruneIntervalMs?: number;
  /** Claims one pruning step looks at (default 10,000). */
  readonly claimsPrunedPerStep?: number;
  /** The page size of a new file (bytes; default 1,024 — see docs/persistence.md). */
  readonly pageSize?: number;
  /**
   * `NORMAL` (default): a commit survives the process's crash, however it dies; a power cut or
   * an OS crash can lose the newest commits (never corrupt the file). `FULL`: every commit
   * waits for the disk (fsync), so it survives a power cut too — at one fsync per write.
   */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /** Expire idle conversations and compact old history now and then (`npm start` does); off when absent. */
  readonly retention?: SqliteRetentionOptions;
  /**
   * Checkpoint the WAL from a thread of its own this often (ms; `npm start`: 1,000), so that no
   * write of this connection ever does; unset or 0: SQLite's automatic checkpoint, in the commit
   * that crosses 1,000 WAL pages.
   */
  readonly checkpointIntervalMs?: number;
  /** Where the checkpointer's failures are reported. */
  readonly logger?: Logger;
}

/**
 * The embedded store of `npm start` (docs/persistence.md): one SQLite file in WAL mode through
 * `node:sqlite`, one process per file. Every write checks the fence (and for a checkpoint the
 * version) inside a `BEGIN IMMEDIATE` transaction, so a crash leaves all of a write or none of
 * it; the writes asked for in one turn of the event loop share that transaction, each in a
 * savepoint of its own (`SqliteWriteBatch`: group commit). The API is synchronous: a batch runs
 * to its end before anything else starts, and its statements take microseconds.
 */
export class SqliteSourceStore implements SourceStore {
  /** What the first-wave import brought in, when this open ran it. */
  imported: FileStoreImport | undefined;

  private readonly statements: SqliteStatements;
  private readonly batch: SqliteWriteBatch;
  private readonly clock: Clock;
  private readonly claimTtlMs: number;
  private readonly maxInbox: number;
  private readonly claimPruneIntervalMs: number;
  private readonly onWriteStep: (step: string) => void;
  private lastClaimPrune = 0;
  /** Where the next slice of claims to prune starts (after this key). */
  private claimPruneCursor = '';
  private readonly claimsPrunedPerStep: number;
  private closed = false;
  private readonly retention: RetentionSweep | undefined;
  private checkpointer: SqliteCheckpointer | undefined;

  private constructor(
    private readonly database: DatabaseSync,
    private readonly releaseLock: () => void,
    options: SqliteSourceStoreOptions,
  ) {
    this.statements = prepareStatements(database);
    ({
      clock: this.clock,
      claimTtlMs: this.claimTtlMs,
      maxInbox: this.maxInbox,
      onWriteStep: this.onWriteStep,
    } = resolveSourceStoreOptions(options));
    this.batch = new SqliteWriteBatch(database, this.onWriteStep);
    this.claimPruneIntervalMs = options.claimPruneIntervalMs ?? 10_000;
    this.claimsPrunedPerStep = Math.max(1, Math.trunc(options.claimsPrunedPerStep ?? 10_000));
    this.retention =
      options.retention &&
      new RetentionSweep(
        {
          sourcesAfter: (sourceId, limit) =>
            this.statements.retentionPage.all(sourceId, limit) as unknown as RetentionRow[],
          expire: (row) => this.expire(row),
          compact: (sourceId, window) => this.compact(sourceId, window),
        },
        options.retention,
        this.clock,
      );
  }

  /**
   * Opens (or creates) the database file, and its directory (a fresh clone has no `.data`).
   * Throws `StoreInUseError` when another process has it open; imports a first-wave file store
   * when asked and the database is new.
   */
  static async open(options: SqliteSourceStoreOptions): Promise<SqliteSourceStore> {
    mkdirSync(path.dirname(path.resolve(options.file)), { recursive: true });
    let releaseLock: () => void;
    try {
      releaseLock = holdProcessLock(options.file);
    } catch (error) {
      if (ProcessLockBusyError.isInstance(error))
        throw new StoreInUseError(options.file, readHolder(options.file));
      throw error;
    }
    let database: DatabaseSync | undefined;
    try {
      database = openDatabase(options);
      const store = new SqliteSourceStore(database, releaseLock, options);
      recordHolder(database);
      if (options.importFileStoreFrom !== undefined) {
        store.imported = await importFileStore(
          options.importFileStoreFrom,
          database,
          store.clock.now(),
          store.claimTtlMs,
        );
      }
      store.pruneClaims(store.clock.now());
      store.retention?.start();
      if (options.checkpointIntervalMs)
        store.checkpointer = new SqliteCheckpointer(database, options.file, {
          intervalMs: options.checkpointIntervalMs,
          logger: options.logger,
        });
      return store;
    } catch (error) {
      database?.close();
      releaseLock();
      throw error;
    }
  }

  async accept(item: InboxItem): Promise<boolean> {
    const now = this.clock.now();
    const accepted = await this.batch.write('accept', (step) => this.acceptWithin(item, now, step));
    if (accepted) this.pruneClaimsNowAndThen(now);
    return accepted;
  }

  async acceptAndAcquire(item: InboxItem, owner: SourceOwner): Promise<AcceptedAndAcquired> {
    const now = this.clock.now();
    const result = await this.batch.write('accept', (step): AcceptedAndAcquired => {
      if (!this.acceptWithin(item, now, step)) return { accepted: false, ownership: undefined };
      const ownership = this.takeWithin(item.source.id, owner, (row) => !row?.owner_id, step);
      return { accepted: true, ownership };
    });
    if (result.accepted) this.pruneClaimsNowAndThen(now);
    return result;
  }

  inbox(sourceId: string, limit = -1): Promise<StoredInboxItem[]> {
    return settled(() =>
      (this.statements.inbox.all(sourceId, Number.isFinite(limit) ? limit : -1) as unknown as InboxRow[]).map(
        (row) =>
          storedInboxItem({
            key: String(row.position),
            text: row.item,
            attempts: row.attempts,
            eventId: row.event_id,
            takenBack: row.taken_back === 1,
          }),
      ),
    );
  }

  countAttempt(sourceId: string, key: string): Promise<void> {
    return this.batch.write('countAttempt', (step) => {
      this.statements.countAttempt.run(sourceId, inboxPosition(key));
      step('inbox');
    });
  }

  acquire(
    sourceId: string,
    owner: SourceOwner,
    isGone: (owner: SourceOwner) => boolean,
  ): Promise<Ownership | undefined> {
    return this.batch.write('acquire', (step) => {
      const now = this.clock.now();
      return this.takeWithin(
        sourceId,
        owner,
        (row) => {
          const current = row && ownerOf(row);
          return (
            !current ||
            current.ownerId === owner.ownerId ||
            current.heartbeatAt + current.leaseMs < now ||
            isGone(current)
          );
        },
        step,
      );
    });
  }

  renew(ownership: Ownership, heartbeatAt: number): Promise<void> {
    return this.batch.write('renew', (step) => {
      const { changes } = this.statements.renew.run(
        heartbeatAt,
        ownership.sourceId,
        ownership.fence,
        ownership.ownerId,
      );
      if (changes === 0) throw this.ownershipLost(ownership);
      step('head');
    });
  }

  release(ownership: Ownership): Promise<void> {
    return this.batch.write('release', (step) => {
      this.statements.release.run(ownership.sourceId, ownership.fence, ownership.ownerId);
      step('head');
    });
  }

  load(sourceId: string, window: HistoryWindow): Promise<LoadedSource> {
    return settled(() => {
      // One read transaction: the head and the entries are of the same moment.
      this.statements.begin.run();
      try {
        const row = this.statements.head.get(sourceId) as HeadRow | undefined;
        const unreadable: UnreadableRecord[] = [];
        const head = row && headOf(row, unreadable);
        const history = this.historyWindow(sourceId, window, unreadable).map(
          ({ seq, entry }): HistoryRecord => ({ seq, entry }),
        );
        return { head, history, ...(unreadable.length > 0 && { unreadable }) };
      } finally {
        this.statements.commit.run();
      }
    });
  }

  checkpoint(checkpoint: Checkpoint): Promise<number> {
    return this.batch.write('checkpoint', (step) => this.writeCheckpoint(checkpoint, false, step).version);
  }

  closeTurn(checkpoint: Checkpoint): Promise<ClosedTurn> {
    return this.batch.write('checkpoint', (step) => this.writeCheckpoint(checkpoint, true, step));
  }

  /** One checkpoint, in a transaction; `closing`: also release when the inbox is then empty. */
  private writeCheckpoint(
    checkpoint: Checkpoint,
    closing: boolean,
    step: (name: string) => void,
  ): ClosedTurn {
    const { ownership } = checkpoint;
    const row = this.ownedHead(ownership);
    if (row.version !== checkpoint.expectedVersion) {
      throw new VersionConflictError(ownership.sourceId, checkpoint.expectedVersion, row.version);
    }
    const lastSeq = nextLastSeq(ownership.sourceId, row.last_seq, checkpoint.appended);
    const consumed = checkpoint.consumedKeys.map(inboxPosition);
    for (const record of checkpoint.appended) {
      this.statements.insertHistory.run(ownership.sourceId, record.seq, JSON.stringify(record.entry));
      step('history');
    }
    for (const seq of checkpoint.removedSeqs) {
      this.statements.deleteHistoryEntry.run(ownership.sourceId, seq);
      step('removed');
    }
    const takenBack: string[] = [];
    for (const position of consumed) {
      const consumedItem = this.statements.consumeInboxItem.get(ownership.sourceId, position) as
        { taken_back: number } | undefined;
      if (checkpoint.answering && consumedItem?.taken_back) takenBack.push(String(position));
      step('inbox');
    }
    if (takenBack.length > 0) throw new MessageTakenBackError(ownership.sourceId, takenBack);
    const version = row.version + 1;
    this.statements.writeHead.run(
      version,
      checkpoint.machineVersion,
      JSON.stringify(checkpoint.snapshot),
      lastSeq,
      checkpoint.busy ? 1 : 0,
      this.clock.now(),
      ownership.sourceId,
    );
    const released =
      checkpoint.release === true ||
      (closing && this.statements.inboxHasItems.get(ownership.sourceId) === undefined);
    if (released) this.statements.release.run(ownership.sourceId, ownership.fence, ownership.ownerId);
    step('head');
    return { version, released };
  }

  forget(ownership: Ownership, throughKey: string): Promise<void> {
    return this.batch.write('forget', (step) => {
      const through = inboxPosition(throughKey);
      this.ownedHead(ownership);
      this.statements.deleteHistory.run(ownership.sourceId);
      step('history');
      this.statements.deleteProfiles.run(ownership.sourceId);
      step('profiles');
      this.statements.deleteInboxThrough.run(ownership.sourceId, through);
      step('inbox');
      this.statements.tombstone.run(this.clock.now(), ownership.sourceId);
      step('head');
    });
  }

  profiles(sourceId: string): Promise<StoredProfile[]> {
    return settled(() =>
      // A profile is a cache: one that does not read back is fetched again and overwritten.
      (this.statements.profiles.all(sourceId) as { profile: string }[]).flatMap((row) =>
        readProfile(row.profile),
      ),
    );
  }

  saveProfile(ownership: Ownership, profile: StoredProfile): Promise<void> {
    return this.batch.write('saveProfile', (step) => {
      this.ownedHead(ownership);
      this.statements.saveProfile.run(ownership.sourceId, profile.userId, JSON.stringify(profile));
      step('profile');
    });
  }

  sourcesWithWork(): Promise<string[]> {
    return settled(() =>
      (this.statements.sourcesWithWork.all() as { source_id: string }[]).map((row) => row.source_id),
    );
  }

  listSources(limit = Infinity): Promise<SourceSummary[]> {
    // SQLite's LIMIT: -1 for none.
    const sqlLimit = Number.isFinite(limit) ? Math.max(0, Math.trunc(limit)) : -1;
    return settled(() =>
      (
        this.statements.listSources.all(sqlLimit) as (Partial<HeadRow> & {
          source_id: string;
          inbox_size: number;
        })[]
      )
        .map((row) => {
          const owner = row.owner_id ? ownerOf(row as HeadRow) : undefined;
          return {
            sourceId: row.source_id,
            version: row.version ?? 0,
            ...(owner && { owner }),
            busy: row.busy === 1,
            inboxSize: row.inbox_size,
            updatedAt: row.updated_at ?? 0,
          };
        })
        .sort(byRecentUpdate)
        .slice(0, limit),
    );
  }

  /**
   * Deletes the history below the window a load returns (as `DynamoDbSourceStore.compactHistory`);
   * returns how many entries went. The retention sweep calls it for long histories.
   */
  compactHistory(sourceId: string, window: HistoryWindow): Promise<number> {
    return settled(() => this.compact(sourceId, window));
  }

  /** One pass of the retention sweep now (it also runs by itself when `retention` is set). */
  sweepRetention(): Promise<{ expired: number; compactedEntries: number }> {
    if (!this.retention) return Promise.reject(new Error('this store was opened without retention'));
    return this.retention.sweep();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.retention?.stop();
    // Writes asked for just before: written, not lost with the connection.
    this.batch.flush();
    // The checkpointer's connection first: the last to close copies what is left of the WAL.
    await this.checkpointer?.stop();
    this.database.close();
    this.releaseLock();
  }

  /**
   * One maintenance write of the retention sweep, alone in its transaction: `BEGIN IMMEDIATE`
   * takes the write lock first (waiting up to the busy timeout), so the checks inside see what
   * the write will change; any throw rolls everything back. (Serving writes go in batches.)
   */
  private transaction<T>(operation: string, body: (step: (name: string) => void) => T): T {
    const step = (name: string) => this.onWriteStep(`${operation}:${name}`);
    this.statements.beginImmediate.run();
    let result: T;
    try {
      result = body(step);
      step('commit');
      this.statements.commit.run();
    } catch (error) {
      rollBack(this.database);
      throw error;
    }
    step('committed');
    return result;
  }

  /** Claim and inbox item of `accept`, inside a transaction; false for a redelivery. */
  private acceptWithin(item: InboxItem, now: number, step: (name: string) => void): boolean {
    const claimed = this.statements.claim.run(item.eventId, now + this.claimTtlMs, now).changes > 0;
    if (!claimed) return false;
    step('claim');
    const tail = this.statements.inboxTail.get(item.source.id) as InboxTailRow | undefined;
    const admission = admitToInbox(
      item,
      // An unreadable newest item is no overflow item: a new one goes after it.
      { waiting: tail?.waiting ?? 0, last: tail && parseInboxItem(tail.item).value },
      this.maxInbox,
    );
    const json = JSON.stringify(admission.item);
    if (item.kind === 'unsend') this.markTakenBack(item.source.id, item.messageId);
    if (admission.kind === 'replace')
      this.statements.replaceInboxItem.run(json, item.source.id, tail!.position);
    else this.statements.insertInbox.run(item.source.id, admission.item.eventId, json);
    step('inbox');
    return true;
  }

  /** Marks the waiting items of the message an unsend takes back: their turn must not answer. */
  private markTakenBack(sourceId: string, messageId: string): void {
    for (const row of this.statements.inbox.all(sourceId, -1) as unknown as InboxRow[]) {
      const stored = parseInboxItem(row.item).value;
      if (stored && isMessage(stored) && stored.messageId === messageId)
        this.statements.markTakenBack.run(sourceId, row.position);
    }
  }

  /** Takes the source for `owner` when `isFree` says so, inside a transaction: the fence moves on. */
  private takeWithin(
    sourceId: string,
    owner: SourceOwner,
    isFree: (row: OwnerRow | undefined) => boolean,
    step: (name: string) => void,
  ): Ownership | undefined {
    const row = this.statements.ownerHead.get(sourceId) as OwnerRow | undefined;
    if (!isFree(row)) return undefined;
    if (!row) this.statements.insertHead.run(sourceId, this.clock.now());
    const fence = (row?.fence ?? 0) + 1;
    this.statements.takeOwnership.run(
      fence,
      owner.ownerId,
      owner.host,
      owner.pid,
      owner.heartbeatAt,
      owner.leaseMs,
      sourceId,
    );
    step('head');
    const current = row && ownerOf(row);
    return {
      sourceId,
      ownerId: owner.ownerId,
      fence,
      version: row?.version ?? 0,
      ...(current && current.ownerId !== owner.ownerId && { previousOwner: current }),
    };
  }

  /** The head row, if `ownership` still holds it; otherwise `OwnershipLostError`. */
  private ownedHead(ownership: Ownership): OwnerRow {
    const row = this.statements.ownerHead.get(ownership.sourceId) as OwnerRow | undefined;
    if (!row || row.fence !== ownership.fence || row.owner_id !== ownership.ownerId) {
      throw new OwnershipLostError(
        ownership.sourceId,
        ownership.fence,
        row?.fence,
        row?.owner_id ?? undefined,
      );
    }
    return row;
  }

  private ownershipLost(ownership: Ownership): OwnershipLostError {
    const row = this.statements.ownerHead.get(ownership.sourceId) as OwnerRow | undefined;
    return new OwnershipLostError(
      ownership.sourceId,
      ownership.fence,
      row?.fence,
      row?.owner_id ?? undefined,
    );
  }

  private compact(sourceId: string, window: HistoryWindow): number {
    return this.transaction('compact', (step) => {
      const oldestKept = this.historyWindow(sourceId, window)[0]?.seq;
      if (oldestKept === undefined) return 0;
      const { changes } = this.statements.deleteHistoryBelow.run(sourceId, oldestKept);
      step('history');
      return Number(changes);
    });
  }

  /**
   * The entries a load returns: the newest within the window, starting at a user entry, and
   * newer than any entry that does not read back (reported in `unreadable`).
   */
  private historyWindow(sourceId: string, window: HistoryWindow, unreadable: UnreadableRecord[] = []) {
    const newestFirst = this.statements.historyNewestFirst.iterate(sourceId) as Iterable<HistoryRow>;
    return collectHistoryWindow(
      readableHistory(rowsOf(newestFirst), unreadable),
      (record) => ({ entry: record.entry, bytes: record.bytes }),
      window,
    );
  }

  /** An idle conversation goes as on unfollow (its head kept as a tombstone), unless it moved since `row`. */
  private expire(row: RetentionRow): boolean {
    return this.transaction('expire', (step) => {
      const { changes } = this.statements.expireHead.run(this.clock.now(), row.source_id, row.version);
      if (Number(changes) === 0) return false;
      step('head');
      this.statements.deleteHistory.run(row.source_id);
      step('history');
      this.statements.deleteProfiles.run(row.source_id);
      step('profiles');
      return true;
    });
  }

  /** The next slice of claims, once per interval: accepts call it, so it stays small. */
  private pruneClaimsNowAndThen(now: number) {
    if (now - this.lastClaimPrune < this.claimPruneIntervalMs) return;
    this.lastClaimPrune = now;
    try {
      const end = this.statements.claimSliceEnd.get(this.claimPruneCursor, this.claimsPrunedPerStep - 1) as
        { event_id: string } | undefined;
      if (end) {
        this.statements.pruneClaimSlice.run(this.claimPruneCursor, end.event_id, now);
        this.claimPruneCursor = end.event_id;
      } else {
        // The last slice: the next one starts again from the first claim.
        this.statements.pruneClaimTail.run(this.claimPruneCursor, now);
        this.claimPruneCursor = '';
      }
    } catch (error) {
      if (!isBusy(error)) throw error; // another connection is writing: next time
    }
  }

  /** Every expired claim at once: when the store opens, before it serves. */
  private pruneClaims(now: number) {
    this.lastClaimPrune = now;
    try {
      this.statements.pruneClaims.run(now);
    } catch (error) {
      if (!isBusy(error)) throw error; // another connection is writing: next time
    }
  }
}

/** Opens the file and sets it up; a file that is no database, or one of another schema, fails naming it. */
function openDatabase(options: SqliteSourceStoreOptions): DatabaseSync {
  return openSqliteFile(
    options.file,
    { busyTimeoutMs: options.busyTimeoutMs ?? 1_000, what: 'the SQLite store' },
    (database) =>
      prepareDatabase(database, {
        pageSize: options.pageSize ?? 1024,
        synchronous: options.synchronous ?? 'NORMAL',
      }),
  );
}

function* rowsOf(rows: Iterable<HistoryRow>) {
  for (const row of rows) yield { seq: row.seq, text: row.entry };
}
