import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from '../logging/index.js';
import { holdProcessLock } from '../persistence/sqlite-process-lock.js';
import { settled } from '../persistence/settled.js';
import { readChecked } from '../persistence/stored-records.js';
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
const schema = `
CREATE TABLE reminders (
  source_id TEXT NOT NULL,
  id TEXT NOT NULL,
  reminder TEXT NOT NULL,
  PRIMARY KEY (source_id, id)
) STRICT, WITHOUT ROWID;
`;

interface ReminderRow {
  readonly source_id: string;
  readonly id: string;
  readonly reminder: string;
}

/**
 * The local reminders in an SQLite file of their own (`DATA_DIR/reminders.db`, WAL), held by one
 * process like the store's. The calls are synchronous underneath; a failure is a rejection.
 */
export class SqliteReminderList implements ReminderList {
  private readonly statements;

  private constructor(
    private readonly database: DatabaseSync,
    private readonly file: string,
    private readonly release: () => void,
    private readonly logger: Logger | undefined,
  ) {
    this.statements = {
      all: database.prepare('SELECT source_id, id, reminder FROM reminders'),
      put: database.prepare('INSERT OR REPLACE INTO reminders (source_id, id, reminder) VALUES (?, ?, ?)'),
      remove: database.prepare('DELETE FROM reminders WHERE source_id = ? AND id = ?'),
    };
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
    return settled(() =>
      (this.statements.all.all() as unknown as ReminderRow[]).flatMap((row) => this.parsed(row)),
    );
  }

  put(reminder: Reminder): Promise<void> {
    return settled(() => this.write(reminder));
  }

  remove(sourceId: string, reminderId: string): Promise<void> {
    return settled(() => {
      this.statements.remove.run(sourceId, reminderId);
    });
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
    this.statements.put.run(reminder.source.id, reminder.id, JSON.stringify(reminder));
  }

  /**
   * Kaiwa wrote the row: one that is not that reminder is damage to look at — never dropped, and
   * never a reason to stop every other reminder and chat (docs/persistence.md, "Unreadable records").
   */
  private parsed(row: ReminderRow): Reminder[] {
    const { value, error } = readChecked<Reminder>(
      () => JSON.parse(row.reminder),
      (reminder) =>
        isReminder(reminder) && reminder.source.id === row.source_id && reminder.id === row.id
          ? undefined
          : 'not that reminder',
    );
    if (value) return [value];
    this.logger?.error('reminder row cannot be read; left in the file, not scheduled', {
      file: this.file,
      sourceId: row.source_id,
      reminderId: row.id,
      error,
    });
    return [];
  }
}

function openDatabase(options: SqliteReminderListOptions): DatabaseSync {
  return openSqliteFile(
    options.file,
    { busyTimeoutMs: options.busyTimeoutMs ?? 1_000, what: 'the reminders database' },
    (database) => useSingleVersionSchema(database, SCHEMA_VERSION, schema),
  );
}
