import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { rollBack } from './sqlite-file.js';

/**
 * At most this many writes share a transaction: a recovery that takes thousands of sources at
 * once then commits in slices, and webhooks are read between them.
 */
export const MAX_WRITES_PER_TRANSACTION = 256;

/** One write waiting for the next transaction. */
interface PendingWrite {
  readonly operation: string;
  readonly body: (step: (name: string) => void) => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for the SQLite store: the writes asked for in one turn of the event loop share one
 * `BEGIN IMMEDIATE` transaction, each inside a savepoint of its own, so that one refused (a
 * version conflict, a lost fence, a message taken back) is rolled back and rejects alone. Each
 * write resolves only once the transaction has committed; a failed `BEGIN` or `COMMIT` rejects
 * them all, none of them written. Under load, concurrent sources' writes then share their WAL
 * frames and their commit (docs/PERFORMANCE.md); alone, a write waits one `setImmediate`.
 *
 * `onWriteStep` (the crash tests' seam) hears each write's own steps, then `<operation>:commit`
 * for every write before the `COMMIT` and `<operation>:committed` after it: a fault before the
 * `COMMIT` leaves none of the batch, one after it all of it (that write then rejects, written).
 */
export class SqliteWriteBatch {
  private pending: PendingWrite[] = [];
  private readonly begin: StatementSync;
  private readonly commit: StatementSync;
  private readonly savepoint: StatementSync;
  private readonly releaseSavepoint: StatementSync;
  private readonly rollbackToSavepoint: StatementSync;

  constructor(
    private readonly database: DatabaseSync,
    private readonly onWriteStep: (step: string) => void,
  ) {
    // Prepared once: `exec` would parse them again for every write.
    this.begin = database.prepare('BEGIN IMMEDIATE');
    this.commit = database.prepare('COMMIT');
    this.savepoint = database.prepare('SAVEPOINT write');
    this.releaseSavepoint = database.prepare('RELEASE write');
    this.rollbackToSavepoint = database.prepare('ROLLBACK TO write');
  }

  /** Runs `body` in the next transaction; resolves with what it returned once that committed. */
  write<T>(operation: string, body: (step: (name: string) => void) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.commitNextSlice());
      this.pending.push({ operation, body, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Writes all that waits, now (the store calls it before it closes). */
  flush(): void {
    while (this.pending.length > 0) this.commitSlice(this.pending.splice(0, MAX_WRITES_PER_TRANSACTION));
  }

  /** One slice; more than a slice waits: the rest after the event loop's next turn (webhooks). */
  private commitNextSlice(): void {
    this.commitSlice(this.pending.splice(0, MAX_WRITES_PER_TRANSACTION));
    if (this.pending.length > 0) setImmediate(() => this.commitNextSlice());
  }

  /** Writes these in one transaction and settles each. */
  private commitSlice(writes: readonly PendingWrite[]): void {
    if (writes.length === 0) return;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.begin.run();
      for (const write of writes) outcomes.push(this.inSavepoint(write));
      for (const write of writes) this.onWriteStep(`${write.operation}:commit`);
      this.commit.run();
    } catch (error) {
      rollBack(this.database);
      for (const write of writes) write.reject(error);
      return;
    }
    writes.forEach((write, index) => {
      const outcome = outcomes[index]!;
      try {
        this.onWriteStep(`${write.operation}:committed`);
      } catch (error) {
        write.reject(error);
        return;
      }
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
  }

  /**
   * One write in a savepoint: refused, it is rolled back alone. When SQLite ended the whole
   * transaction (a full disk, an I/O error), the rollback to the savepoint throws and the batch
   * fails as a whole.
   */
  private inSavepoint(write: PendingWrite): { ok: true; value: unknown } | { ok: false; error: unknown } {
    const step = (name: string) => this.onWriteStep(`${write.operation}:${name}`);
    this.savepoint.run();
    try {
      const value = write.body(step);
      this.releaseSavepoint.run();
      return { ok: true, value };
    } catch (error) {
      this.rollbackToSavepoint.run();
      this.releaseSavepoint.run();
      return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
    }
  }
}
