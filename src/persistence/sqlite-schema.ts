import type { DatabaseSync } from 'node:sqlite';
import { migrateSchema } from './sqlite-file.js';

/** Bumped with every change below; a newer file is refused rather than misread. */
export const SQLITE_SCHEMA_VERSION = 3;

// Version 2: the inspector lists the most recently updated sources from an index, not a scan
// of every head (1.5 s for 100,000 sources, blocking the process).
const headsByUpdate = 'CREATE INDEX IF NOT EXISTS heads_by_update ON heads (updated_at, source_id);';

// Version 3: an unsend accepted while its message waits marks that message's inbox item, so the
// checkpoint of a turn already answering it is refused and the answer never goes out.
const inboxTakenBack = 'ALTER TABLE inbox ADD COLUMN taken_back INTEGER NOT NULL DEFAULT 0;';

// Tables of the SQLite source store (docs/persistence.md). Values the store never queries by
// are JSON text; ids are data, never file names. STRICT tables refuse a value of the wrong type.
const schema = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE heads (
  source_id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  fence INTEGER NOT NULL,
  owner_id TEXT,
  owner_host TEXT,
  owner_pid INTEGER,
  heartbeat_at INTEGER,
  lease_ms INTEGER,
  machine_version INTEGER NOT NULL,
  snapshot TEXT,
  last_seq INTEGER NOT NULL,
  busy INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE history (
  source_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  entry TEXT NOT NULL,
  PRIMARY KEY (source_id, seq)
) STRICT, WITHOUT ROWID;

-- AUTOINCREMENT: a position is never reused, so a stale key can never name a newer item.
CREATE TABLE inbox (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  source_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  item TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  taken_back INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX inbox_by_source ON inbox (source_id, position);

CREATE TABLE claims (
  event_id TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE profiles (
  source_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  profile TEXT NOT NULL,
  PRIMARY KEY (source_id, user_id)
) STRICT, WITHOUT ROWID;
`;

/**
 * Sets the connection up (WAL, `synchronous`, the page size of a new file) and creates the
 * tables of a new file, in one transaction.
 */
export function prepareDatabase(
  database: DatabaseSync,
  options: { readonly pageSize: number; readonly synchronous: 'NORMAL' | 'FULL' },
): void {
  // The page size only applies to a file without tables yet, and must come before WAL.
  database.exec(`PRAGMA page_size = ${Math.trunc(options.pageSize)}`);
  database.exec('PRAGMA journal_mode = WAL');
  database.exec(`PRAGMA synchronous = ${options.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
  migrateSchema(database, (version) => {
    if (version < SQLITE_SCHEMA_VERSION) {
      if (version === 0) database.exec(schema);
      else database.exec(inboxTakenBack);
      database.exec(headsByUpdate);
      database.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_VERSION}`);
    } else if (version !== SQLITE_SCHEMA_VERSION) {
      throw new Error(
        `SQLite store schema ${version} is not ${SQLITE_SCHEMA_VERSION}: the file was written by another kaiwa version`,
      );
    }
  });
}
