import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from '../logging/index.js';
import { holdProcessLock } from '../persistence/sqlite-process-lock.js';
import { settled } from '../persistence/settled.js';
import {
  keyedRecordsSchema,
  SqliteKeyedRecords,
  type KeyedRecordsTable,
} from '../persistence/sqlite-keyed-records.js';
import { inWriteTransaction, openSqliteFile, useSingleVersionSchema } from '../persistence/sqlite-file.js';
import { readReminderFile } from './reminder-file.js';
import type { ReminderList } from './reminder-list.js';
import { isReminder, type Reminder } from './reminder.js';

export interface SqliteReminderListOptions {
  readonly file: string;
  /** The reminders file of an earlier release: imported at open, then renamed `<name>.imported`. */
  readonly importFrom?: string;
  readonly logger?: Logger;
  /** How long a write waits for another connection's write lock (ms). */
  readonly busyTimeoutMs?: number;
}

/** Bumped with every change of the table; a newer file is refused rather than misread. */
const SCHEMA_VERSION = 1;

// One row a reminder: setting, cancelling or delivering one writes that row, whatever waits.
const REMINDERS: KeyedRecordsTable = { name: 'reminders', keyColumn: 'id', valueColumn: 'reminder' };

/**
 * The local reminders in an SQLite file of their own (`DATA_DIR/reminders.db`, WAL), held by one
 * process like the store's. The calls are synchronous underneath; a failure is a rejection.
 */
export class SqliteReminderList implements ReminderList {
  private readonly reminders: SqliteKeyedRecords<Reminder>;

  private constructor(
    private readonly database: DatabaseSync,
    private readonly file: string,
    private readonly release: () => void,
    private readonly logger: Logger | undefined,
  ) {
    this.reminders = new SqliteKeyedRecords<Reminder>(database, REMINDERS, {
      fault: (reminder, sourceId, id) =>
        isReminder(reminder) && reminder.source.id === sourceId && reminder.id === id
          ? undefined
          : 'not that reminder',
      // Never dropped, and never a reason to stop every other reminder and chat
      // (docs/persistence.md, "Unreadable records").
      onUnreadable: ({ sourceId, key, error }) =>
        this.logger?.error('reminder row cannot be read; left in the file, not scheduled', {
          file: this.file,
          sourceId,
          reminderId: key,
          error,
        }),
    });
  }

  /** Opens (creating) the file, importing `importFrom` if it is there. Throws naming the file. */
  static async open(options: SqliteReminderListOptions): Promise<SqliteReminderList> {
    await mkdir(path.dirname(options.file), { recursive: true });
    const release = holdProcessLock(options.file);
    let list: SqliteReminderList | undefined;
    try {
      list = new SqliteReminderList(openDatabase(options), options.file, release, options.logger);
      if (options.importFrom) await list.importFile(options.importFrom);
      return list;
    } catch (error) {
      if (list) list.close();
      else release();
      throw error;
    }
  }

  /** Every reminder that reads back; a row that does not is logged and left in the file. */
  all(): Promise<readonly Reminder[]> {
    return settled(() => this.reminders.all());
  }

  put(reminder: Reminder): Promise<void> {
    return settled(() => this.write(reminder));
  }

  remove(sourceId: string, reminderId: string): Promise<void> {
    return settled(() => this.reminders.remove(sourceId, reminderId));
  }

  /** Closes the file and lets go of its lock; again, nothing. */
  close(): void {
    this.release(); // the release is once-only itself
    try {
      this.database.close();
    } catch {
      // closed already
    }
  }

  /**
   * One transaction for the whole file, then the rename: a crash between the two imports the same
   * reminders again at the next start, which changes nothing.
   */
  private async importFile(jsonFile: string) {
    const read = await readReminderFile(jsonFile);
    if (!read) return;
    inWriteTransaction(this.database, () => {
      for (const reminder of read.reminders) this.write(reminder);
    });
    await rename(jsonFile, `${jsonFile}.imported`);
    this.logger?.info('reminders imported', {
      from: jsonFile,
      into: this.file,
      reminders: read.reminders.length,
      format: read.format,
    });
  }

  private write(reminder: Reminder) {
    this.reminders.put(reminder.source.id, reminder.id, reminder);
  }
}

function openDatabase(options: SqliteReminderListOptions): DatabaseSync {
  return openSqliteFile(
    options.file,
    { busyTimeoutMs: options.busyTimeoutMs ?? 1_000, what: 'the reminders database' },
    (database) => useSingleVersionSchema(database, SCHEMA_VERSION, keyedRecordsSchema(REMINDERS)),
  );
}
