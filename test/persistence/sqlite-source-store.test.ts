import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import type { HistoryEntry, InboundMessage, JsonObject } from '../../src/domain/index.js';
import { openSqliteSourceStore, StoreInUseError } from '../../src/persistence/index.js';
import { writeFirstWaveFiles } from '../support/first-wave-data.js';
import { crashScenarios, observe, type CrashScenario } from './crash-scenarios.js';
import { sourceStoreConformance } from './source-store.conformance.js';
import { message, neverGone, owner, testClock, unsendEvent, WIDE } from './source-store-fixtures.js';
import { unreadableRecordsConformance, type DamageTarget } from './unreadable-records.conformance.js';

const directories: string[] = [];
async function freshDirectory() {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-sqlite-store-'));
  directories.push(directory);
  return directory;
}
const freshFile = async () => path.join(await freshDirectory(), 'kaiwa.db');
const stores: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

sourceStoreConformance('sqlite', async (options) => {
  const file = await freshFile();
  return { open: (instance) => openSqliteSourceStore({ ...options, ...instance, file }) };
});

unreadableRecordsConformance('sqlite', async (clock) => {
  const file = await freshFile();
  const store = await openSqliteSourceStore({ clock, file });
  stores.push(store);
  const damage = (target: DamageTarget) => {
    // Another connection, as a hand edit would be (the process lock is on a side file).
    const database = new DatabaseSync(file);
    try {
      if (target.record === 'inbox')
        database
          .prepare('UPDATE inbox SET item = ? WHERE position = ?')
          .run('{"text": "cut', Number(target.key));
      else if (target.record === 'history')
        database
          .prepare('UPDATE history SET entry = ? WHERE source_id = ? AND seq = ?')
          .run('{"role":"model"}', target.sourceId, target.seq);
      else if (target.record === 'profile')
        database
          .prepare('UPDATE profiles SET profile = ? WHERE source_id = ? AND user_id = ?')
          .run('{"userId": ', target.sourceId, target.userId);
      else
        database.prepare('UPDATE heads SET snapshot = ? WHERE source_id = ?').run('[1, 2', target.sourceId);
    } finally {
      database.close();
    }
    return Promise.resolve();
  };
  return { store, damage };
});

const childScript = path.join(import.meta.dirname, 'support', 'sqlite-store-child.ts');

/** Starts the child script in its own Node.js process. */
function startChild(...args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--disable-warning=ExperimentalWarning', childScript, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => ({ stdout, stderr }),
    exited: async () => ({ ...(await exited), stdout, stderr }),
    printed: async (pattern: RegExp) => {
      for (let waited = 0; !pattern.test(stdout); waited += 20) {
        if (waited > 20_000 || child.exitCode !== null) throw new Error(`child said: ${stdout}${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

describe('sqlite source store: one process per file', () => {
  it('refuses a second process with one clear line naming the holder, and lets a new one in once the holder died', async () => {
    const file = await freshFile();
    const holder = startChild('hold', file);
    await holder.printed(/ready \d+/);

    const refused = await startChild('open', file).exited();

    expect(refused.code).toBe(1);
    expect(refused.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `kaiwa\\.db is in use by process ${holder.child.pid} on .+: kaiwa runs one process per SQLite file`,
        ),
      ),
    ]);

    holder.child.kill('SIGKILL');
    await holder.exited();
    const next = await startChild('open', file).exited();
    expect(next).toMatchObject({ code: 0, stdout: 'opened\n' });
  });

  it('refuses a second process while this one holds the file, and shares the file between its own stores', async () => {
    const file = await freshFile();
    const first = await openSqliteSourceStore({ file });
    const second = await openSqliteSourceStore({ file });
    await second.close();

    const refused = await startChild('open', file).exited();
    await first.close();
    const afterClose = await startChild('open', file).exited();

    expect(refused.stderr).toContain(`in use by process ${process.pid}`);
    expect(afterClose.code).toBe(0);
  });

  it('throws StoreInUseError in-process when the lock is held elsewhere', async () => {
    const file = await freshFile();
    const holder = startChild('hold', file);
    await holder.printed(/ready/);

    await expect(openSqliteSourceStore({ file })).rejects.toBeInstanceOf(StoreInUseError);

    holder.child.kill('SIGKILL');
    await holder.exited();
  });
});

describe('sqlite source store: a SIGKILL at every write step', () => {
  /** Before and after the whole write, and its steps, from runs in this process. */
  async function dryRun(scenario: CrashScenario) {
    const untouched = await openSqliteSourceStore({ file: await freshFile(), clock: testClock() });
    await scenario.arrange(untouched);
    const before = await observe(untouched, scenario);
    await untouched.close();
    const file = await freshFile();
    await scenario.arrange(await openSqliteSourceStore({ file, clock: testClock() }));
    const steps: string[] = [];
    const recording = await openSqliteSourceStore({
      file,
      clock: testClock(),
      onWriteStep: (step) => steps.push(step),
    });
    await scenario.act(recording);
    const after = await observe(recording, scenario);
    await recording.close();
    return { before, after, steps };
  }

  it.each(crashScenarios.map((scenario) => [scenario.name, scenario] as const))(
    '%s: a process killed at any step leaves all of the write or none of it; killed before COMMIT none, after it all',
    async (name, scenario) => {
      const { before, after, steps } = await dryRun(scenario);
      expect(steps).toContain(`${name}:commit`);

      for (const step of steps) {
        const file = await freshFile();
        const killed = await startChild('crash', file, name, step).exited();
        expect(killed.signal, `${step}: ${killed.stdout}${killed.stderr}`).toBe('SIGKILL');

        const reopened = await openSqliteSourceStore({ file, clock: testClock() });
        const seen = await observe(reopened, scenario);
        await reopened.close();
        if (step === `${name}:commit`) expect(seen, step).toEqual(before);
        else if (step === `${name}:committed`) expect(seen, step).toEqual(after);
        else expect([before, after], step).toContainEqual(seen);
      }
    },
    180_000,
  );
});

describe('sqlite source store specifics', () => {
  it('acceptAndAcquire takes a source nobody owns in the accept itself, and only such a source', async () => {
    const clock = testClock();
    const store = await openSqliteSourceStore({ file: await freshFile(), clock });
    const first = message('U-take', 'first');

    const taken = await store.acceptAndAcquire(first, owner('a', clock));
    expect(taken).toEqual({
      accepted: true,
      ownership: { sourceId: 'U-take', ownerId: 'a-owner', fence: 1, version: 0 },
    });
    expect((await store.inbox('U-take')).map((stored) => stored.item!.eventId)).toEqual([first.eventId]);
    // The take is durable: another owner cannot acquire while the lease runs, and the fence checks pass.
    expect(await store.acquire('U-take', owner('b', clock), neverGone)).toBeUndefined();
    await store.renew(taken.ownership!, clock.now());

    // Owned (even by the same owner): accepted only, the fence stays where it is.
    expect(await store.acceptAndAcquire(message('U-take', 'second'), owner('a', clock))).toEqual({
      accepted: true,
      ownership: undefined,
    });
    // A redelivery: neither accepted nor taken.
    await store.release(taken.ownership!);
    expect(await store.acceptAndAcquire(first, owner('a', clock))).toEqual({
      accepted: false,
      ownership: undefined,
    });
    expect((await store.load('U-take', WIDE)).head?.owner).toBeUndefined();
    // Released: taken again, under the next fence.
    expect(
      (await store.acceptAndAcquire(message('U-take', 'third'), owner('a', clock))).ownership?.fence,
    ).toBe(2);
    expect(await store.inbox('U-take')).toHaveLength(3);
    await store.close();
  });

  it('keeps ids as data: odd source ids create no files', async () => {
    const directory = await freshDirectory();
    const store = await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db') });
    for (const sourceId of ['..', '../../inbox', 'a/b', 'C:\\x']) await store.accept(message(sourceId, 'hi'));
    await store.close();

    expect((await readdir(directory)).sort()).toEqual(['kaiwa.db', 'kaiwa.db.lock']);
  });

  it('prunes expired claims when opened and then at most once per interval, not on every accept', async () => {
    const file = await freshFile();
    const clock = testClock();
    const claims = () => {
      const reader = new DatabaseSync(file, { readOnly: true });
      const { count } = reader.prepare('SELECT count(*) AS count FROM claims').get() as { count: number };
      reader.close();
      return count;
    };
    const options = { file, clock, claimTtlMs: 1_000, claimPruneIntervalMs: 10_000 };
    const store = await openSqliteSourceStore(options);
    for (let n = 0; n < 3; n++) await store.accept(message('U-a', `m${n}`));

    clock.advance(2_000); // all three expired, but the last prune was at open
    await store.accept(message('U-a', 'soon after'));
    expect(claims()).toBe(4);
    clock.advance(10_000);
    await store.accept(message('U-a', 'an interval later'));
    expect(claims()).toBe(1);
    await store.accept(message('U-a', 'again'));
    clock.advance(5_000);
    await store.close();

    await (await openSqliteSourceStore(options)).close();
    expect(claims()).toBe(0);
  });

  it('prunes claims a slice at a time after opening, so an accept never scans a week of them', async () => {
    const file = await freshFile();
    const clock = testClock();
    const count = (where: string) => {
      const reader = new DatabaseSync(file, { readOnly: true });
      const query = reader.prepare(`SELECT count(*) AS count FROM claims WHERE ${where}`);
      const row = (where.includes('?') ? query.get(clock.now()) : query.get()) as {
        count: number;
      };
      reader.close();
      return row.count;
    };
    const options = { file, clock, claimTtlMs: 1_000, claimPruneIntervalMs: 10_000, claimsPrunedPerStep: 2 };
    const store = await openSqliteSourceStore(options);
    for (let n = 0; n < 6; n++) await store.accept(message('U-a', `old${n}`));
    clock.advance(2_000);
    expect(count('expires_at <= ?')).toBe(6);

    // One accept per interval: each prunes the next slice of two claims (in key order), never more.
    const expiredAfterEachStep: number[] = [];
    for (let step = 0; step < 12 && count("event_id LIKE '%old%'") > 0; step++) {
      clock.advance(10_000);
      await store.accept(message('U-a', `new${step}`));
      // The new claims expire too, a second later: follow the first six.
      expiredAfterEachStep.push(count("event_id LIKE '%old%'"));
    }

    expect(expiredAfterEachStep[0]).toBeGreaterThanOrEqual(4);
    for (const [step, expired] of expiredAfterEachStep.entries())
      expect((expiredAfterEachStep[step - 1] ?? 6) - expired).toBeLessThanOrEqual(2);
    expect(expiredAfterEachStep.at(-1)).toBe(0);
    await store.close();
  });

  it('waits for another connection’s write for the busy timeout, then fails without writing half', async () => {
    const file = await freshFile();
    const store = await openSqliteSourceStore({ file, busyTimeoutMs: 100 });
    const operator = new DatabaseSync(file); // e.g. a sqlite3 shell writing
    operator.exec('BEGIN IMMEDIATE');

    const blocked = store.accept(message('U-a', 'blocked'));

    await expect(blocked).rejects.toThrow(/database is locked/);
    operator.exec('COMMIT');
    operator.close();
    await store.accept(message('U-a', 'after'));
    expect((await store.inbox('U-a')).map(({ item }) => (item as InboundMessage).text)).toEqual(['after']);
    await store.close();
  });

  it('creates a WAL file with 1 KiB pages (fewer bytes per write, docs/persistence.md)', async () => {
    const file = await freshFile();
    const store = await openSqliteSourceStore({ file });
    await store.accept(message('U-a', 'hi'));

    const reader = new DatabaseSync(file, { readOnly: true });
    const pragma = (name: string) => Object.values(reader.prepare(`PRAGMA ${name}`).get()!)[0];
    expect([pragma('journal_mode'), pragma('page_size')]).toEqual(['wal', 1024]);
    reader.close();
    await store.close();
  });

  it('refuses a file written by a newer schema', async () => {
    const file = await freshFile();
    await (await openSqliteSourceStore({ file })).close();
    const database = new DatabaseSync(file);
    database.exec('PRAGMA user_version = 99');
    database.close();

    await expect(openSqliteSourceStore({ file })).rejects.toThrow(/schema 99/);
    expect((await startChild('open', file).exited()).stderr).toMatch(/schema 99/); // the lock was released
  });

  it('upgrades a file of schema 1: the index the inspector lists sources from is added', async () => {
    const file = await freshFile();
    const first = await openSqliteSourceStore({ file });
    await first.accept(message('U-old', 'hi'));
    await first.close();
    const downgrade = new DatabaseSync(file);
    downgrade.exec(
      'DROP INDEX heads_by_update; ALTER TABLE inbox DROP COLUMN taken_back; PRAGMA user_version = 1',
    );
    downgrade.close();

    const store = await openSqliteSourceStore({ file });
    expect((await store.listSources()).map((summary) => summary.sourceId)).toEqual(['U-old']);
    await store.close();
    const check = new DatabaseSync(file);
    expect(check.prepare('PRAGMA user_version').get()).toEqual({ user_version: 3 });
    expect(
      check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'heads_by_update'").all(),
    ).toHaveLength(1);
    // The list of the most recent sources reads that index, not every head.
    const plan = check
      .prepare(
        'EXPLAIN QUERY PLAN SELECT source_id FROM heads ORDER BY updated_at DESC, source_id DESC LIMIT 5',
      )
      .all()
      .map((row) => String((row as { detail: string }).detail));
    expect(plan.join('\n')).toContain('heads_by_update');
    check.close();
  });

  it('upgrades a file of schema 2: a waiting message can be marked taken back, and its checkpoint is refused', async () => {
    const file = await freshFile();
    const first = await openSqliteSourceStore({ file });
    const waiting = { ...message('U-old', 'oops'), messageId: 'm-old' };
    await first.accept(waiting);
    await first.close();
    const downgrade = new DatabaseSync(file);
    downgrade.exec('ALTER TABLE inbox DROP COLUMN taken_back; PRAGMA user_version = 2');
    downgrade.close();

    const store = await openSqliteSourceStore({ file });
    const [item] = await store.inbox('U-old');
    expect(await store.accept(unsendEvent('U-old', 'm-old'))).toBe(true);
    const ownership = (await store.acquire('U-old', owner('alice', testClock()), neverGone))!;
    await expect(
      store.checkpoint({
        ownership,
        expectedVersion: 0,
        machineVersion: 1,
        snapshot: {},
        busy: false,
        appended: [],
        removedSeqs: [],
        consumedKeys: [item!.key],
        answering: true,
      }),
    ).rejects.toMatchObject({ name: 'MessageTakenBackError', keys: [item!.key] });
    await store.close();
    const check = new DatabaseSync(file);
    expect(check.prepare('PRAGMA user_version').get()).toEqual({ user_version: 3 });
    check.close();
  });

  it('refuses a file that is no database, naming it, and lets the next process try', async () => {
    const file = await freshFile();
    await writeFile(file, randomBytes(8192));

    await expect(openSqliteSourceStore({ file })).rejects.toThrow(
      `cannot open the SQLite store ${file}: file is not a database`,
    );
    expect((await startChild('open', file).exited()).stderr).toContain(`${file}: file is not a database`);
  });
});

describe('sqlite source store: import of the first-wave file store', () => {
  const history: HistoryEntry[] = [
    { role: 'user', eventId: 'e-1', text: 'hello', timestamp: 1 },
    { role: 'model', turnId: 'e-1', calls: [{ id: 'c1', name: 'reply', args: { message: 'hi!' } }] },
    { role: 'tool', turnId: 'e-1', results: [{ callId: 'c1', name: 'reply', response: { sent: true } }] },
  ];

  async function firstWaveDirectory() {
    const directory = await freshDirectory();
    const taken = { ...message('U-a', 'hello'), eventId: 'e-1' };
    const queued = message('U-a', 'queued in the snapshot');
    const waiting = message('U-a', 'waiting in the inbox');
    const otherSource = message('C-group', 'only an inbox');
    // What the old store left after accepting `taken` and `queued`, saving the snapshot that took
    // `queued` in (and deleting its file), then accepting `waiting` and `otherSource`.
    await writeFirstWaveFiles(directory, {
      conversations: [
        {
          sourceId: 'U-a',
          version: 1,
          machineVersion: 3,
          busy: true,
          updatedAt: Date.now(),
          snapshot: {
            status: 'active',
            value: 'idle',
            context: {
              history: history as unknown as JsonObject[],
              settings: { maxModelCalls: 3 },
              profiles: { U1: { displayName: 'Alice', fetchedAt: 5 } },
              pending: [[queued]] as never,
              recentEventIds: ['e-1', queued.eventId],
              turn: null,
            },
          },
        },
      ],
      inbox: [taken, waiting, otherSource],
      claimed: [queued.eventId],
    });
    // What a malformed group id made the old store write: a file in the inbox root.
    await writeFile(path.join(directory, 'inbox', 'stray.json'), '{}');
    return { directory, taken, queued, waiting, otherSource };
  }

  it('turns conversations into heads and history, keeps the inbox in order, and moves the old folders aside', async () => {
    const { directory, taken, queued, waiting, otherSource } = await firstWaveDirectory();

    const store = await openSqliteSourceStore({
      file: path.join(directory, 'kaiwa.db'),
      importFileStoreFrom: directory,
    });

    expect(store.imported).toEqual({
      conversations: 1,
      historyEntries: 3,
      inboxItems: 3,
      claims: 4,
      skipped: [path.join('inbox', 'stray.json')],
      movedTo: path.join(directory, 'file-store-imported'),
    });
    const { head, history: records } = await store.load('U-a', WIDE);
    expect(head).toMatchObject({ version: 1, fence: 0, machineVersion: 3, lastSeq: 3, busy: true });
    expect(head?.owner).toBeUndefined();
    expect(head?.snapshot).toEqual({
      status: 'active',
      value: 'idle',
      context: { pending: [], recentEventIds: ['e-1', queued.eventId], turn: null },
    });
    expect(records).toEqual(history.map((entry, index) => ({ seq: index + 1, entry })));
    expect((await store.inbox('U-a')).map(({ item }) => item)).toEqual([queued, waiting]);
    expect((await store.inbox('C-group')).map(({ item }) => item)).toEqual([otherSource]);
    expect(await store.profiles('U-a')).toEqual([{ userId: 'U1', displayName: 'Alice', fetchedAt: 5 }]);
    for (const item of [taken, queued, waiting, otherSource]) expect(await store.accept(item)).toBe(false);
    expect((await store.sourcesWithWork()).sort()).toEqual(['C-group', 'U-a']);
    // The owner of the migrated source continues its history above the imported seqs.
    const ownership = (await store.acquire('U-a', owner('alice', testClock()), neverGone))!;
    expect(ownership.version).toBe(1);
    await store.close();

    expect((await readdir(directory)).sort()).toEqual(['file-store-imported', 'kaiwa.db', 'kaiwa.db.lock']);
    expect((await readdir(path.join(directory, 'file-store-imported'))).sort()).toEqual([
      'claims',
      'conversations',
      'inbox',
    ]);
  });

  it('imports once: a reopen imports nothing again, and completes a move aside that a crash interrupted', async () => {
    const { directory } = await firstWaveDirectory();
    const file = path.join(directory, 'kaiwa.db');
    await (await openSqliteSourceStore({ file, importFileStoreFrom: directory })).close();
    // As if the process died after the import's commit, before the folders moved.
    for (const folder of ['conversations', 'inbox', 'claims']) {
      await rename(path.join(directory, 'file-store-imported', folder), path.join(directory, folder));
    }

    const store = await openSqliteSourceStore({ file, importFileStoreFrom: directory });

    expect(store.imported).toBeUndefined();
    expect(await store.inbox('U-a')).toHaveLength(2);
    expect((await readdir(path.join(directory, 'file-store-imported'))).sort()).toEqual([
      'claims',
      'conversations',
      'inbox',
    ]);
    await store.close();
  });

  it('leaves the old folders alone when the database already holds sources', async () => {
    const { directory } = await firstWaveDirectory();
    const file = path.join(directory, 'kaiwa.db');
    const used = await openSqliteSourceStore({ file });
    await used.accept(message('U-new', 'already here'));
    await used.close();

    const store = await openSqliteSourceStore({ file, importFileStoreFrom: directory });

    expect(store.imported).toBeUndefined();
    expect(await store.inbox('U-a')).toEqual([]);
    expect(await readdir(directory)).toContain('conversations');
    await store.close();
  });

  it('does nothing for a directory without the old layout', async () => {
    const directory = await freshDirectory();
    await mkdir(path.join(directory, 'journal'));

    const store = await openSqliteSourceStore({
      file: path.join(directory, 'kaiwa.db'),
      importFileStoreFrom: directory,
    });

    expect(store.imported).toBeUndefined();
    await store.close();
  });
});
