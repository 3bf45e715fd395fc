import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { readChecked } from './stored-records.js';

/** A table of JSON records, one row each, keyed by their source and a key of their own. */
export interface KeyedRecordsTable {
  readonly name: string;
  readonly keyColumn: string;
  readonly valueColumn: string;
}

/** The table's DDL: the JSON as text, the two keys its primary key. */
export function keyedRecordsSchema(table: KeyedRecordsTable): string {
  return `
CREATE TABLE ${table.name} (
  source_id TEXT NOT NULL,
  ${table.keyColumn} TEXT NOT NULL,
  ${table.valueColumn} TEXT NOT NULL,
  PRIMARY KEY (source_id, ${table.keyColumn})
) STRICT, WITHOUT ROWID;
`;
}

/** A row whose JSON is not the record its keys say, and why. */
export interface UnreadableRow {
  readonly sourceId: string;
  readonly key: string;
  readonly error: string;
}

/**
 * The rows of a `(source_id, key)`-keyed table of JSON records, synchronous as `node:sqlite`
 * is: the local reminders and the ledger of background work are each one. Kaiwa wrote every
 * row, so one that does not read back as its record is damage to look at — handed to
 * `onUnreadable` and left in the file, never a reason to stop reading the others.
 */
export class SqliteKeyedRecords<T> {
  private readonly statements: { all: StatementSync; put: StatementSync; remove: StatementSync };

  constructor(
    database: DatabaseSync,
    private readonly table: KeyedRecordsTable,
    private readonly options: {
      /** Why `value` is not the record of `sourceId` and `key`; undefined when it is. */
      readonly fault: (value: unknown, sourceId: string, key: string) => string | undefined;
      readonly onUnreadable: (record: UnreadableRow) => void;
    },
  ) {
    const { name, keyColumn, valueColumn } = table;
    this.statements = {
      all: database.prepare(`SELECT source_id, ${keyColumn}, ${valueColumn} FROM ${name}`),
      put: database.prepare(
        `INSERT OR REPLACE INTO ${name} (source_id, ${keyColumn}, ${valueColumn}) VALUES (?, ?, ?)`,
      ),
      remove: database.prepare(`DELETE FROM ${name} WHERE source_id = ? AND ${keyColumn} = ?`),
    };
  }

  /** Every record that reads back as its keys say. */
  all(): T[] {
    const rows = this.statements.all.all() as Record<string, string>[];
    return rows.flatMap((row) => {
      const sourceId = row.source_id ?? '';
      const key = row[this.table.keyColumn] ?? '';
      const { value, error } = readChecked<T>(
        () => JSON.parse(row[this.table.valueColumn] ?? ''),
        (parsed) => this.options.fault(parsed, sourceId, key),
      );
      if (value !== undefined) return [value];
      this.options.onUnreadable({ sourceId, key, error: error ?? 'unreadable' });
      return [];
    });
  }

  /** Adds the record, or replaces the one with its keys. */
  put(sourceId: string, key: string, value: T): void {
    this.statements.put.run(sourceId, key, JSON.stringify(value));
  }

  remove(sourceId: string, key: string): void {
    this.statements.remove.run(sourceId, key);
  }
}
