import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from '../logging/index.js';
import { settled } from '../persistence/settled.js';
import {
  keyedRecordsSchema,
  SqliteKeyedRecords,
  type KeyedRecordsTable,
} from '../persistence/sqlite-keyed-records.js';
import { openSqliteFile, useSingleVersionSchema } from '../persistence/sqlite-file.js';
import { isBackgroundCall, type BackgroundCall, type BackgroundLedger } from '../tools/index.js';

/** Bumped with every change of the table; a newer file is refused rather than misread. */
const SCHEMA_VERSION = 1;

/** One row a piece of work still running, keyed by its source and its call's idempotency key. */
const RUNNING: KeyedRecordsTable = { name: 'running', keyColumn: 'idempotency_key', valueColumn: 'call' };

/**
 * `npm start`'s ledger of the tools' background work still running (`DATA_DIR/background.db`,
 * WAL): a row a piece, written when it starts and deleted once its outcome is in the inbox, so the
 * next start reports as interrupted what a crash left (docs/design-notes.md, "Background work").
 * The store's lock on `kaiwa.db` in the same directory keeps it to one process.
 */
export class SqliteBackgroundLedger implements BackgroundLedger {
  private readonly running: SqliteKeyedRecords<BackgroundCall>;

  private constructor(
    private readonly database: DatabaseSync,
    file: string,
    logger: Logger | undefined,
  ) {
    this.running = new SqliteKeyedRecords<BackgroundCall>(database, RUNNING, {
      fault: (call, sourceId, key) =>
        isBackgroundCall(call) && call.source.id === sourceId && call.idempotencyKey === key
          ? undefined
          : 'not that call',
      onUnreadable: ({ sourceId, error }) =>
        logger?.error('background work ledger row cannot be read; left in the file, not reported', {
          file,
          sourceId,
          error,
        }),
    });
  }

  /** Opens (creating) the file. Throws naming it. */
  static async open(options: { file: string; logger?: Logger }): Promise<SqliteBackgroundLedger> {
    await mkdir(path.dirname(options.file), { recursive: true });
    const database = openSqliteFile(
      options.file,
      { busyTimeoutMs: 1_000, what: 'the background work ledger' },
      (opened) => useSingleVersionSchema(opened, SCHEMA_VERSION, keyedRecordsSchema(RUNNING)),
    );
    return new SqliteBackgroundLedger(database, options.file, options.logger);
  }

  note(call: BackgroundCall): Promise<void> {
    return settled(() => this.running.put(call.source.id, call.idempotencyKey, call));
  }

  strike(call: BackgroundCall): Promise<void> {
    return settled(() => this.running.remove(call.source.id, call.idempotencyKey));
  }

  leftBehind(): Promise<readonly BackgroundCall[]> {
    return settled(() => this.running.all());
  }

  /** Closes the file; again, nothing. */
  close(): void {
    try {
      this.database.close();
    } catch {
      // closed already
    }
  }
}
