import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SourceHead, SourceOwner, UnreadableRecord } from './source-store.js';
import { parseSnapshot } from './stored-records.js';

// The SQL of the SQLite source store (tables in sqlite-schema.ts), prepared once per connection,
// and the rows it reads.

export interface HeadRow {
  source_id: string;
  version: number;
  fence: number;
  owner_id: string | null;
  owner_host: string | null;
  owner_pid: number | null;
  heartbeat_at: number | null;
  lease_ms: number | null;
  machine_version: number;
  snapshot: string | null;
  last_seq: number;
  busy: number;
  updated_at: number;
}

/** What the fence checks read of a head: everything but the snapshot, which spans pages of its own. */
export type OwnerRow = Pick<
  HeadRow,
  | 'source_id'
  | 'version'
  | 'fence'
  | 'owner_id'
  | 'owner_host'
  | 'owner_pid'
  | 'heartbeat_at'
  | 'lease_ms'
  | 'last_seq'
>;

export const HEAD_COLUMNS =
  'source_id, version, fence, owner_id, owner_host, owner_pid, heartbeat_at, lease_ms, machine_version, snapshot, last_seq, busy, updated_at';

/** The newest inbox item of a source and how many wait. */
export interface InboxTailRow {
  readonly position: number;
  readonly item: string;
  readonly waiting: number;
}

export interface InboxRow {
  position: number;
  event_id: string;
  item: string;
  attempts: number;
  taken_back: number;
}

export interface HistoryRow {
  seq: number;
  entry: string;
}

export function ownerOf(row: OwnerRow): SourceOwner | undefined {
  if (row.owner_id === null) return undefined;
  return {
    ownerId: row.owner_id,
    host: row.owner_host ?? '',
    pid: row.owner_pid ?? 0,
    heartbeatAt: row.heartbeat_at ?? 0,
    leaseMs: row.lease_ms ?? 0,
  };
}

/** The head of `row`; a snapshot that does not read back is left out and reported in `unreadable`. */
export function headOf(row: HeadRow, unreadable: UnreadableRecord[] = []): SourceHead {
  const owner = ownerOf(row);
  const snapshot = row.snapshot === null ? undefined : parseSnapshot(row.snapshot);
  if (snapshot?.error !== undefined) unreadable.push({ record: 'snapshot', error: snapshot.error });
  return {
    sourceId: row.source_id,
    version: row.version,
    fence: row.fence,
    ...(owner && { owner }),
    machineVersion: row.machine_version,
    ...(snapshot?.value && { snapshot: snapshot.value }),
    lastSeq: row.last_seq,
    busy: row.busy === 1,
    updatedAt: row.updated_at,
  };
}

/** Every statement of the store, prepared on `database`. */
export type SqliteStatements = ReturnType<typeof prepareStatements>;

export function prepareStatements(database: DatabaseSync) {
  const prepare = (sql: string): StatementSync => database.prepare(sql);
  return {
    // A claim is new, or replaces one that expired; `changes` says which.
    claim: prepare(
      `INSERT INTO claims (event_id, expires_at) VALUES (?, ?)
       ON CONFLICT (event_id) DO UPDATE SET expires_at = excluded.expires_at WHERE claims.expires_at <= ?`,
    ),
    pruneClaims: prepare('DELETE FROM claims WHERE expires_at <= ?'),
    // Pruning a slice of the claims in key order (?2 rows after ?1): its last key, then its expired.
    claimSliceEnd: prepare(
      'SELECT event_id FROM claims WHERE event_id > ? ORDER BY event_id LIMIT 1 OFFSET ?',
    ),
    pruneClaimSlice: prepare('DELETE FROM claims WHERE event_id > ? AND event_id <= ? AND expires_at <= ?'),
    pruneClaimTail: prepare('DELETE FROM claims WHERE event_id > ? AND expires_at <= ?'),
    insertInbox: prepare('INSERT INTO inbox (source_id, event_id, item) VALUES (?, ?, ?)'),
    // What accept decides the cap on: the newest item and how many wait (at most the cap + 1).
    inboxTail: prepare(
      `SELECT position, item, (SELECT count(*) FROM inbox WHERE source_id = ?1) AS waiting
       FROM inbox WHERE source_id = ?1 ORDER BY position DESC LIMIT 1`,
    ),
    replaceInboxItem: prepare('UPDATE inbox SET item = ?, attempts = 0 WHERE source_id = ? AND position = ?'),
    inbox: prepare(
      'SELECT position, event_id, item, attempts, taken_back FROM inbox WHERE source_id = ? ORDER BY position LIMIT ?',
    ),
    countAttempt: prepare('UPDATE inbox SET attempts = attempts + 1 WHERE source_id = ? AND position = ?'),
    // A consumed item, and whether its sender took it back meanwhile (the checkpoint is refused).
    consumeInboxItem: prepare('DELETE FROM inbox WHERE source_id = ? AND position = ? RETURNING taken_back'),
    markTakenBack: prepare('UPDATE inbox SET taken_back = 1 WHERE source_id = ? AND position = ?'),
    inboxHasItems: prepare('SELECT 1 AS waiting FROM inbox WHERE source_id = ? LIMIT 1'),
    deleteInboxThrough: prepare('DELETE FROM inbox WHERE source_id = ? AND position <= ?'),
    head: prepare(`SELECT ${HEAD_COLUMNS} FROM heads WHERE source_id = ?`),
    // The fence checks of every write: without the snapshot, whose overflow pages a check
    // would otherwise read on every acquire and checkpoint (docs/PERFORMANCE.md).
    ownerHead: prepare(
      `SELECT source_id, version, fence, owner_id, owner_host, owner_pid, heartbeat_at, lease_ms, last_seq
       FROM heads WHERE source_id = ?`,
    ),
    // Prepared once: `exec` would parse them again for every transaction.
    begin: prepare('BEGIN'),
    beginImmediate: prepare('BEGIN IMMEDIATE'),
    commit: prepare('COMMIT'),
    insertHead: prepare(
      `INSERT INTO heads (source_id, version, fence, machine_version, last_seq, busy, updated_at)
       VALUES (?, 0, 0, 0, 0, 0, ?)`,
    ),
    takeOwnership: prepare(
      `UPDATE heads SET fence = ?, owner_id = ?, owner_host = ?, owner_pid = ?, heartbeat_at = ?, lease_ms = ?
       WHERE source_id = ?`,
    ),
    renew: prepare('UPDATE heads SET heartbeat_at = ? WHERE source_id = ? AND fence = ? AND owner_id = ?'),
    release: prepare(
      `UPDATE heads SET owner_id = NULL, owner_host = NULL, owner_pid = NULL, heartbeat_at = NULL, lease_ms = NULL
       WHERE source_id = ? AND fence = ? AND owner_id = ?`,
    ),
    writeHead: prepare(
      `UPDATE heads SET version = ?, machine_version = ?, snapshot = ?, last_seq = ?, busy = ?, updated_at = ?
       WHERE source_id = ?`,
    ),
    tombstone: prepare(
      'UPDATE heads SET version = version + 1, snapshot = NULL, busy = 0, updated_at = ? WHERE source_id = ?',
    ),
    insertHistory: prepare('INSERT INTO history (source_id, seq, entry) VALUES (?, ?, ?)'),
    historyNewestFirst: prepare('SELECT seq, entry FROM history WHERE source_id = ? ORDER BY seq DESC'),
    deleteHistoryEntry: prepare('DELETE FROM history WHERE source_id = ? AND seq = ?'),
    deleteHistory: prepare('DELETE FROM history WHERE source_id = ?'),
    deleteHistoryBelow: prepare('DELETE FROM history WHERE source_id = ? AND seq < ?'),
    profiles: prepare('SELECT profile FROM profiles WHERE source_id = ?'),
    saveProfile: prepare(
      `INSERT INTO profiles (source_id, user_id, profile) VALUES (?, ?, ?)
       ON CONFLICT (source_id, user_id) DO UPDATE SET profile = excluded.profile`,
    ),
    deleteProfiles: prepare('DELETE FROM profiles WHERE source_id = ?'),
    // The retention sweep's page of sources (sqlite-retention.ts).
    retentionPage: prepare(
      `SELECT source_id, version, owner_id, heartbeat_at, lease_ms, busy, updated_at, last_seq,
         snapshot IS NOT NULL AS has_snapshot,
         EXISTS (SELECT 1 FROM inbox WHERE inbox.source_id = heads.source_id) AS has_inbox,
         (SELECT min(seq) FROM history WHERE history.source_id = heads.source_id) AS oldest_seq
       FROM heads WHERE source_id > ? ORDER BY source_id LIMIT ?`,
    ),
    // An idle conversation's head, as `tombstone`, if nothing wrote or arrived since the sweep read it.
    expireHead: prepare(
      `UPDATE heads SET version = version + 1, snapshot = NULL, busy = 0, updated_at = ?1
       WHERE source_id = ?2 AND version = ?3 AND busy = 0
         AND NOT EXISTS (SELECT 1 FROM inbox WHERE inbox.source_id = ?2)`,
    ),
    sourcesWithWork: prepare('SELECT source_id FROM heads WHERE busy = 1 UNION SELECT source_id FROM inbox'),
    // The most recently updated heads from their index, and the sources that have only inbox
    // items (a first message still waiting), at most ?1 of each; -1 for all.
    listSources: prepare(
      `SELECT * FROM (
         SELECT source_id, version, fence, owner_id, owner_host, owner_pid, heartbeat_at, lease_ms, busy, updated_at,
           (SELECT count(*) FROM inbox WHERE inbox.source_id = heads.source_id) AS inbox_size
         FROM heads ORDER BY updated_at DESC, source_id DESC LIMIT ?1)
       UNION ALL
       SELECT * FROM (
         SELECT source_id, 0, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, count(*)
         FROM inbox WHERE source_id NOT IN (SELECT source_id FROM heads)
         GROUP BY source_id ORDER BY source_id LIMIT ?1)`,
    ),
  };
}
