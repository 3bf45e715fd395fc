import { DatabaseSync } from 'node:sqlite';

/**
 * Opens an SQLite file with its busy timeout, then `setUp`; a failure closes it and names the
 * file (SQLite's own message does not say which). Imported only by modules loaded lazily, so a
 * Lambda bundle never loads `node:sqlite`.
 */
export function openSqliteFile(
  file: string,
  options: { readonly busyTimeoutMs: number; readonly what: string },
  setUp: (database: DatabaseSync) => void,
): DatabaseSync {
  let database: DatabaseSync | undefined;
  try {
    database = new DatabaseSync(file);
    // The pragma rather than the constructor's `timeout`, which Node.js 22.13–22.15 lack.
    database.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs)}`);
    setUp(database);
    return database;
  } catch (error) {
    database?.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot open ${options.what} ${file}: ${reason}`, { cause: error });
  }
}

/** Runs `migrate` with the file's `user_version`, inside one write transaction. */
export function migrateSchema(database: DatabaseSync, migrate: (version: number) => void): void {
  inWriteTransaction(database, () => {
    const { user_version: version } = database.prepare('PRAGMA user_version').get() as {
      user_version: number;
    };
    migrate(version);
  });
}

/**
 * A file of one table set at one version: a new file (`user_version` 0) gets `schema` and the
 * version; a file of another version is refused rather than misread. WAL, `synchronous = NORMAL`.
 */
export function useSingleVersionSchema(database: DatabaseSync, version: number, schema: string): void {
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA synchronous = NORMAL');
  migrateSchema(database, (found) => {
    if (found === 0) {
      database.exec(schema);
      database.exec(`PRAGMA user_version = ${version}`);
    } else if (found !== version) {
      throw new Error(`schema ${found} is not ${version}: the file was written by another kaiwa version`);
    }
  });
}

/** Runs `body` in one write transaction (`BEGIN IMMEDIATE`): all of it is written, or none. */
export function inWriteTransaction(database: DatabaseSync, body: () => void): void {
  database.exec('BEGIN IMMEDIATE');
  try {
    body();
    database.exec('COMMIT');
  } catch (error) {
    database.exec('ROLLBACK');
    throw error;
  }
}

/** Ends a failed transaction; a failed COMMIT or BEGIN may have ended it already. */
export function rollBack(database: DatabaseSync): void {
  try {
    database.exec('ROLLBACK');
  } catch {
    // no transaction was left to roll back
  }
}
