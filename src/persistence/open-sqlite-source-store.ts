import type { SqliteSourceStore, SqliteSourceStoreOptions } from './sqlite-source-store.js';

/**
 * Opens the SQLite source store, loading `node:sqlite` only now: a Lambda bundle, which never
 * calls this, never loads it. Throws `StoreInUseError` when another process has the file.
 *
 * @example
 * const store = await openSqliteSourceStore({ file: path.join(dataDir, 'kaiwa.db'), importFileStoreFrom: dataDir });
 */
export async function openSqliteSourceStore(options: SqliteSourceStoreOptions): Promise<SqliteSourceStore> {
  const { SqliteSourceStore } = await import('./sqlite-source-store.js');
  return SqliteSourceStore.open(options);
}
