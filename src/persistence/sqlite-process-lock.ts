import { KaiwaError } from '../errors/index.js';
import { hostname } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { StoreHolder } from './store-in-use-error.js';

// One process per SQLite file (docs/persistence.md). The lock is SQLite's own exclusive lock on a
// side file, `<db>.lock`, held for the life of the process: the kernel drops it when the process
// dies, however it dies, so there is no stale lock to judge (a PID file would have to guess
// whether a PID was reused, e.g. PID 1 in every container). The database itself stays in
// ordinary WAL mode: store instances and worker threads of the holding process, and a
// `sqlite3` shell reading it, all keep working.

interface Held {
  readonly lock: DatabaseSync;
  users: number;
}

// Instances of this module share the lock of their process: several stores on one file in one
// process are one holder (the conformance suite's two writers).
const held = new Map<string, Held>();

const marker = Symbol.for('kaiwa.error.ProcessLockBusyError');

/** The side file is locked by another process. */
export class ProcessLockBusyError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'ProcessLockBusyError' as const;
  constructor(readonly lockFile: string) {
    super(`${lockFile} is locked by another process`);
  }

  /** True for a `ProcessLockBusyError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is ProcessLockBusyError {
    return KaiwaError.hasMarker(value, marker);
  }
}

/**
 * Takes the process's lock on `databaseFile` (or shares the one it holds); returns the release,
 * which drops the lock when the last user in this process lets go. Throws
 * `ProcessLockBusyError` when another process holds it.
 */
export function holdProcessLock(databaseFile: string): () => void {
  const lockFile = `${path.resolve(databaseFile)}.lock`;
  let hold = held.get(lockFile);
  if (hold) {
    hold.users++;
  } else {
    const lock = new DatabaseSync(lockFile); // no busy timeout: a held lock is an answer at once
    try {
      // EXCLUSIVE locking mode keeps the lock the first write takes until the connection closes.
      lock.exec('PRAGMA journal_mode = OFF; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT');
    } catch (error) {
      lock.close();
      if (isBusy(error)) throw new ProcessLockBusyError(lockFile);
      throw error;
    }
    held.set(lockFile, (hold = { lock, users: 1 }));
  }
  const current = hold;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--current.users > 0) return;
    held.delete(lockFile);
    current.lock.close();
  };
}

/** SQLITE_BUSY or SQLITE_LOCKED, as node:sqlite reports them. */
export function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: number }).errcode;
  return code !== undefined && [5, 6].includes(code & 0xff);
}

/** Records this process as the file's holder, for the message a refused second process prints. */
export function recordHolder(database: DatabaseSync): void {
  const holder: StoreHolder = { pid: process.pid, host: hostname(), since: Date.now() };
  database
    .prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('holder', ?)`)
    .run(JSON.stringify(holder));
}

/** What a refused process can tell about the holder: the row the holder wrote when it opened. */
export function readHolder(file: string): StoreHolder | undefined {
  try {
    const database = new DatabaseSync(file, { readOnly: true });
    try {
      const row = database.prepare(`SELECT value FROM meta WHERE key = 'holder'`).get() as
        { value: string } | undefined;
      return row && (JSON.parse(row.value) as StoreHolder);
    } finally {
      database.close();
    }
  } catch {
    return undefined; // the message still says the file is in use
  }
}
