import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteCheckpointer } from '../../src/persistence/sqlite-checkpointer.js';
import { recordingLogger } from '../support/recording-logger.js';

// The WAL copied into the file by a thread of its own (docs/persistence.md, "SQLite: the embedded
// store"): the connection that serves webhooks never waits for a checkpoint and its fsyncs.

const closingChild = path.join(import.meta.dirname, 'support', 'checkpointed-store-child.ts');
const directories: string[] = [];
const databases: DatabaseSync[] = [];
const checkpointers: SqliteCheckpointer[] = [];
afterEach(async () => {
  for (const checkpointer of checkpointers.splice(0)) await checkpointer.stop();
  for (const database of databases.splice(0)) database.close();
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

async function writerIn(): Promise<{ database: DatabaseSync; file: string }> {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-checkpoint-'));
  directories.push(directory);
  const file = path.join(directory, 'kaiwa.db');
  const database = new DatabaseSync(file);
  databases.push(database);
  database.exec('PRAGMA page_size = 1024; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
  database.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return { database, file };
}

/** About 3 MB in one commit: three times the WAL pages at which SQLite checkpoints by itself. */
function writeThreeMegabytes(database: DatabaseSync) {
  const insert = database.prepare('INSERT INTO rows (body) VALUES (?)');
  database.exec('BEGIN IMMEDIATE');
  for (let index = 0; index < 3_000; index++) insert.run('x'.repeat(1_000));
  database.exec('COMMIT');
}

describe('the SQLite checkpointer', () => {
  it('leaves the copy to its thread: the commit returns with the pages in the WAL, the thread then copies them', async () => {
    const { database, file } = await writerIn();
    const checkpointer = new SqliteCheckpointer(database, file, { intervalMs: 300 });
    checkpointers.push(checkpointer);

    writeThreeMegabytes(database);
    // With SQLite's automatic checkpoint this commit copied 3 MB into the file and synced it.
    expect((await stat(file)).size).toBeLessThan(100_000);
    await vi.waitFor(() => expect(checkpointer.lastReport?.checkpointed).toBeGreaterThanOrEqual(3_000), {
      timeout: 5_000,
    });
    expect(checkpointer.lastReport).toMatchObject({ busy: 0 });
    expect((await stat(file)).size).toBeGreaterThan(3_000_000);
  });

  it("the store's close waits for the thread, even when nothing else keeps the process alive", async () => {
    // The thread does not keep the process alive; a close awaited last saw the process end
    // under it (exit code 13: unsettled top-level await), the file never closed.
    const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-checkpoint-'));
    directories.push(directory);
    const file = path.join(directory, 'kaiwa.db');
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--disable-warning=ExperimentalWarning', closingChild, file],
      { encoding: 'utf8' },
    );
    expect({ status: child.status, stdout: child.stdout }).toEqual({ status: 0, stdout: 'closed\n' });
    // The last connection closed copied the WAL into the file and removed it.
    await expect(stat(`${file}-wal`)).rejects.toThrow(/ENOENT/);
  });

  it('gives the checkpoints back to the writing connection when its thread fails, and says so', async () => {
    const { database } = await writerIn();
    const { lines, logger } = recordingLogger();
    // The thread cannot open its connection: no such directory.
    const checkpointer = new SqliteCheckpointer(database, '/nonexistent/kaiwa.db', {
      intervalMs: 100,
      logger,
    });
    checkpointers.push(checkpointer);
    expect(database.prepare('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 0 });

    await vi.waitFor(() =>
      expect(database.prepare('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 1000 }),
    );
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'WAL checkpointer stopped; the writing connection checkpoints again',
    ]);
  });
});
