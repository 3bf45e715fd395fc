import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  openSqliteSourceStore,
  type HistoryWindow,
  type SqliteSourceStore,
} from '../../src/persistence/index.js';
import type { SqliteRetentionOptions } from '../../src/persistence/sqlite-retention.js';
import { createStore } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config/index.js';
import { replyTurn } from '../support/reply-turn.js';
import { owner, testClock, WIDE, type TestClock } from './source-store-fixtures.js';

// Retention on SQLite (docs/persistence.md): DynamoDB's TTL deletes idle conversations and old
// entries by itself; on the embedded store a sweep does, or the file grows with every turn forever.

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});
async function freshFile() {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-retention-'));
  directories.push(directory);
  return path.join(directory, 'kaiwa.db');
}

const DAY = 86_400_000;
const WINDOW: HistoryWindow = { maxEntries: 30, maxBytes: 1_000_000 };

function openWithRetention(file: string, clock: TestClock, retention: Partial<SqliteRetentionOptions> = {}) {
  return openSqliteSourceStore({
    file,
    clock,
    retention: { window: WINDOW, conversationTtlMs: 30 * DAY, firstSweepAfterMs: 3_600_000, ...retention },
  });
}

/** `turns` simple reply turns of `sourceId`, as the runtime writes them; the source released after. */
async function converse(
  store: SqliteSourceStore,
  clock: TestClock,
  sourceId: string,
  turns: number,
  from = 1,
) {
  for (let turn = from; turn < from + turns; turn++) {
    const { message, intent, sent } = replyTurn({
      sourceId,
      turn,
      firstSeq: 3 * turn - 2,
      signatureBytes: 64,
    });
    const { ownership } = await store.acceptAndAcquire(message, owner('host', clock));
    const taken = ownership ?? (await store.acquire(sourceId, owner('host', clock), () => false))!;
    const [waiting] = await store.inbox(sourceId);
    const head = (await store.load(sourceId, WIDE)).head;
    const base = { ownership: taken, machineVersion: 3, removedSeqs: [] };
    const version = await store.checkpoint({
      ...base,
      expectedVersion: head?.version ?? 0,
      snapshot: intent.snapshot,
      busy: true,
      appended: intent.records,
      consumedKeys: [waiting!.key],
    });
    // The sent marker, giving the source up in the same write.
    await store.checkpoint({
      ...base,
      expectedVersion: version,
      snapshot: sent.snapshot,
      busy: false,
      appended: sent.records,
      consumedKeys: [],
      release: true,
    });
  }
}

describe('retention on SQLite', () => {
  it('compacts a history spanning more than twice the window to what a load returns, and only such a history', async () => {
    const clock = testClock();
    const store = await openWithRetention(await freshFile(), clock);
    await converse(store, clock, 'U-long', 40); // 120 entries: more than twice 30
    await converse(store, clock, 'U-short', 20); // 60 entries: twice 30, left alone
    const window = (await store.load('U-long', WINDOW)).history;

    const swept = await store.sweepRetention();

    expect(window.length).toBeLessThanOrEqual(WINDOW.maxEntries);
    expect(swept).toEqual({ expired: 0, compactedEntries: 120 - window.length });
    expect((await store.load('U-long', WIDE)).history).toEqual(window);
    expect((await store.load('U-long', WINDOW)).history).toEqual(window);
    expect((await store.load('U-short', WIDE)).history).toHaveLength(60);
    // Compacted, it spans the window only: the next sweep finds nothing to do.
    expect(await store.sweepRetention()).toEqual({ expired: 0, compactedEntries: 0 });
    // The conversation goes on where it was.
    await converse(store, clock, 'U-long', 1, 41);
    expect((await store.load('U-long', WIDE)).history.at(-1)?.seq).toBe(123);
    await store.close();
  });

  it('expires a conversation idle for the TTL as an unfollow would, and no other', async () => {
    const clock = testClock();
    const store = await openWithRetention(await freshFile(), clock);
    await converse(store, clock, 'U-idle', 3);
    const taken = (await store.acquire('U-idle', owner('host', clock), () => false))!;
    await store.saveProfile(taken, { userId: 'U-idle', displayName: 'Idle', fetchedAt: clock.now() });
    await store.release(taken);
    await converse(store, clock, 'U-waiting', 3);
    await store.accept(
      replyTurn({ sourceId: 'U-waiting', turn: 9, firstSeq: 25, signatureBytes: 64 }).message,
    );
    await converse(store, clock, 'U-held', 3);
    await store.acquire('U-held', owner('host', clock), () => false); // owned, lease running
    clock.advance(15 * DAY);
    await converse(store, clock, 'U-recent', 3);
    const before = (await store.load('U-idle', WIDE)).head!;
    clock.advance(15 * DAY + 1);

    expect(await store.sweepRetention()).toEqual({ expired: 1, compactedEntries: 0 });

    const idle = await store.load('U-idle', WIDE);
    expect(idle.history).toEqual([]);
    expect(idle.head?.snapshot).toBeUndefined();
    expect(idle.head?.lastSeq).toBe(before.lastSeq);
    // A higher version: a copy of the old conversation still in memory is never taken as current.
    expect(idle.head?.version).toBe(before.version + 1);
    expect(await store.profiles('U-idle')).toEqual([]);
    for (const kept of ['U-waiting', 'U-held', 'U-recent'])
      expect((await store.load(kept, WIDE)).history, kept).toHaveLength(9);

    // A message after it starts afresh, numbering on.
    await converse(store, clock, 'U-idle', 1, 4);
    expect((await store.load('U-idle', WIDE)).history.map((record) => record.seq)).toEqual([10, 11, 12]);
    await store.close();
  });

  it('sweeps by itself after opening and then once per interval, and stops when closed', async () => {
    const file = await freshFile();
    const clock = testClock();
    const writer = await openSqliteSourceStore({ file, clock });
    await converse(writer, clock, 'U-idle', 2);
    await writer.close();
    clock.advance(31 * DAY);

    const store = await openWithRetention(file, clock, { firstSweepAfterMs: 10, sweepIntervalMs: 20 });
    await vi.waitFor(async () => expect((await store.load('U-idle', WIDE)).history).toEqual([]));
    await converse(store, clock, 'U-idle', 1, 3);
    clock.advance(31 * DAY);
    await vi.waitFor(async () => expect((await store.load('U-idle', WIDE)).history).toEqual([]));
    await store.close();
    // Closed: a sweep would now fail on the closed database; none runs (the test would see it).
    await new Promise((resolve) => setTimeout(resolve, 60));
  });

  it('is how npm start opens its store: the configured history window and TTL', async () => {
    const dataDir = path.dirname(await freshFile());
    const config = loadConfig({
      STORE: 'sqlite',
      DATA_DIR: dataDir,
      KAIWA_MAX_HISTORY_ENTRIES: '10',
      KAIWA_CONVERSATION_TTL_DAYS: '1',
    });
    const clock = testClock();
    const store = (await createStore(config)) as SqliteSourceStore;
    await converse(store, clock, 'U-long', 8); // 24 entries: more than twice 10
    await converse(store, clock, 'U-old', 1);

    // Written two days ago, as the store's own (real) clock judges it.
    const backdate = new DatabaseSync(path.join(dataDir, 'kaiwa.db'));
    backdate
      .prepare('UPDATE heads SET updated_at = ? WHERE source_id = ?')
      .run(Date.now() - 2 * DAY, 'U-old');
    backdate.close();

    const swept = await store.sweepRetention();

    expect(swept.expired).toBe(1);
    expect((await store.load('U-old', WIDE)).history).toEqual([]);
    expect(swept.compactedEntries).toBeGreaterThan(0);
    expect((await store.load('U-long', WIDE)).history.length).toBeLessThanOrEqual(10);
    await store.close();
  });
});
