import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { HistoryEntry } from '../src/domain/index.js';

/**
 * The naive contender's persistence, the common pattern: one SQLite row per source holding the
 * whole history as JSON, read whole before a turn and rewritten whole after it. `node:sqlite`
 * like kaiwa's store, with the settings every SQLite tuning guide gives (WAL, `synchronous =
 * NORMAL`), so the two differ in what they write, not in how durably; the page size stays
 * SQLite's default, as a hand-written bot leaves it.
 */
export class NaiveHistoryStore {
  private readonly select: StatementSync;
  private readonly upsert: StatementSync;

  constructor(private readonly database: DatabaseSync) {
    database.exec('PRAGMA journal_mode = WAL');
    database.exec('PRAGMA synchronous = NORMAL');
    database.exec(
      'CREATE TABLE IF NOT EXISTS conversations (source_id TEXT PRIMARY KEY, history TEXT NOT NULL, updated_at INTEGER NOT NULL)',
    );
    this.select = database.prepare('SELECT history FROM conversations WHERE source_id = ?');
    this.upsert = database.prepare(
      'INSERT INTO conversations (source_id, history, updated_at) VALUES (?, ?, ?) ' +
        'ON CONFLICT (source_id) DO UPDATE SET history = excluded.history, updated_at = excluded.updated_at',
    );
  }

  /** Opens (or creates) the database file. */
  static open(file: string): NaiveHistoryStore {
    return new NaiveHistoryStore(new DatabaseSync(file));
  }

  /** The source's whole history; empty for a new source. */
  load(sourceId: string): Promise<HistoryEntry[]> {
    const row = this.select.get(sourceId) as { history: string } | undefined;
    return Promise.resolve(row ? (JSON.parse(row.history) as HistoryEntry[]) : []);
  }

  /** Rewrites the source's whole history. */
  save(sourceId: string, history: readonly HistoryEntry[]): Promise<void> {
    this.upsert.run(sourceId, JSON.stringify(history), Date.now());
    return Promise.resolve();
  }

  close(): void {
    this.database.close();
  }
}
