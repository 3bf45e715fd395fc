import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_WRITES_PER_TRANSACTION, SqliteWriteBatch } from '../../src/persistence/sqlite-write-batch.js';

// Group commit: what shares a transaction, what a refused write or a failed commit leaves.

const opened: { database: DatabaseSync; directory: string }[] = [];
afterEach(async () => {
  for (const { database, directory } of opened.splice(0)) {
    database.close();
    await rm(directory, { recursive: true, force: true });
  }
});

async function batchOnNewFile(fault?: (step: string) => void) {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-batch-'));
  const database = new DatabaseSync(path.join(directory, 'batch.db'));
  database.exec('PRAGMA journal_mode = WAL; CREATE TABLE notes (id TEXT PRIMARY KEY) STRICT');
  opened.push({ database, directory });
  const steps: string[] = [];
  const batch = new SqliteWriteBatch(database, (step) => {
    steps.push(step);
    fault?.(step);
  });
  const insert = database.prepare('INSERT INTO notes (id) VALUES (?)');
  const note = (id: string) => (step: (name: string) => void) => {
    insert.run(id);
    step('note');
    return id;
  };
  const notes = () =>
    (database.prepare('SELECT id FROM notes ORDER BY id').all() as { id: string }[]).map((row) => row.id);
  return { batch, database, steps, note, notes };
}

describe('SqliteWriteBatch (group commit of the SQLite store)', () => {
  it('puts the writes asked for in one turn of the event loop in one transaction, in order', async () => {
    const { batch, steps, note, notes } = await batchOnNewFile();

    const written = await Promise.all([batch.write('a', note('a')), batch.write('b', note('b'))]);
    const alone = await batch.write('c', note('c'));

    expect([...written, alone]).toEqual(['a', 'b', 'c']);
    expect(notes()).toEqual(['a', 'b', 'c']);
    // One commit for a and b: both bodies ran before either was committed.
    expect(steps).toEqual([
      'a:note',
      'b:note',
      'a:commit',
      'b:commit',
      'a:committed',
      'b:committed',
      'c:note',
      'c:commit',
      'c:committed',
    ]);
  });

  it('rolls a refused write back alone: the others in its transaction are written', async () => {
    const { batch, note, notes } = await batchOnNewFile();
    const refused = (step: (name: string) => void) => {
      note('half')(step);
      throw new Error('version conflict');
    };

    const outcomes = await Promise.allSettled([
      batch.write('a', note('a')),
      batch.write('refused', refused),
      batch.write('b', note('b')),
    ]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(notes()).toEqual(['a', 'b']);
  });

  it('rejects every write of a transaction whose commit fails, and writes none of them', async () => {
    const { batch, note, notes } = await batchOnNewFile((step) => {
      if (step === 'b:commit') throw new Error('killed before COMMIT');
    });

    const outcomes = await Promise.allSettled([batch.write('a', note('a')), batch.write('b', note('b'))]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(notes()).toEqual([]);
    // The connection is usable again.
    await expect(batch.write('c', note('c'))).resolves.toBe('c');
  });

  it('rejects a write whose answer is lost after the commit, written all the same', async () => {
    const { batch, note, notes } = await batchOnNewFile((step) => {
      if (step === 'a:committed') throw new Error('killed after COMMIT');
    });

    await expect(batch.write('a', note('a'))).rejects.toThrow('killed after COMMIT');
    expect(notes()).toEqual(['a']);
  });

  it('fails the whole batch when SQLite ended the transaction itself, and stays usable', async () => {
    const { batch, database, note, notes } = await batchOnNewFile();
    // A statement that ends the transaction under the write, as a full disk can.
    const ended = (step: (name: string) => void) => {
      note('lost')(step);
      database.exec('ROLLBACK');
      throw new Error('database or disk is full');
    };

    const outcomes = await Promise.allSettled([batch.write('a', note('a')), batch.write('ended', ended)]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(notes()).toEqual([]);
    await expect(batch.write('c', note('c'))).resolves.toBe('c');
  });

  it('commits more writes than a transaction takes in slices, the rest after the next turn', async () => {
    const { batch, steps, note, notes } = await batchOnNewFile();
    const count = MAX_WRITES_PER_TRANSACTION + 10;
    const ids = Array.from({ length: count }, (_, index) => `n${String(index).padStart(4, '0')}`);

    await Promise.all(ids.map((id) => batch.write(id, note(id))));

    expect(notes()).toEqual(ids);
    // The first slice commits before the last ten writes run.
    const lastOfFirstSlice = ids[MAX_WRITES_PER_TRANSACTION - 1]!;
    expect(steps.indexOf(`${lastOfFirstSlice}:committed`)).toBeLessThan(steps.indexOf(`${ids.at(-1)!}:note`));
    expect(steps.filter((step) => step.endsWith(':committed'))).toHaveLength(count);
  });

  it('writes what waits when flushed at once (the store does before it closes)', async () => {
    const { batch, note, notes } = await batchOnNewFile();

    const written = batch.write('a', note('a'));
    batch.flush();

    expect(notes()).toEqual(['a']);
    await expect(written).resolves.toBe('a');
  });
});
