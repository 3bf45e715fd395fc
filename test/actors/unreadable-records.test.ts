import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { turnOutcome } from '../../src/inspect/turn-outcome.js';
import { openSqliteSourceStore, type SqliteSourceStore } from '../../src/persistence/index.js';
import { EchoReplyModel } from '../../bench/bench-model.js';
import {
  createTestHost,
  messageFor,
  sourceAtRest,
  storedHead,
  storedHistory,
  userSourceNumber,
  userTexts,
} from '../support/host-harness.js';
import { recordingLogger } from '../support/recording-logger.js';
import { until } from '../support/until.js';

// A stored record that does not read back — a row edited by hand, a bad disk, a bug of an older
// version — must not stop its source for good (docs/persistence.md, "Unreadable records"). Before,
// the source's load or inbox read threw on it and was retried forever: no later message of that
// chat was ever answered, and an unreadable newest inbox item failed every accept of the chat.

const directories: string[] = [];
const stores: SqliteSourceStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

const alice = userSourceNumber(1);
const bob = userSourceNumber(2);

/** A SQLite store where alice and bob each had one answered turn; `damage` then edits the file. */
async function storeWithDamage(damage: (database: DatabaseSync) => void) {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-unreadable-'));
  directories.push(directory);
  const file = path.join(directory, 'kaiwa.db');
  const first = await openSqliteSourceStore({ file });
  const before = createTestHost({ model: new EchoReplyModel(), store: first });
  await before.host.accept([messageFor(alice, 'hello from alice')]);
  await before.host.accept([messageFor(bob, 'hello from bob')]);
  await before.host.whenSettled();
  await before.host.shutdown();
  await first.close();

  const database = new DatabaseSync(file);
  damage(database);
  database.close();

  const store = await openSqliteSourceStore({ file });
  stores.push(store);
  const { lines, logger } = recordingLogger('warn');
  const after = createTestHost({ model: new EchoReplyModel(), store, logger });
  return { ...after, lines, store };
}

/** Both chats go on: each answers its next message once. */
async function bothAnswer(
  host: ReturnType<typeof createTestHost>['host'],
  store: SqliteSourceStore,
  texts: () => string[],
) {
  await host.recover();
  await host.accept([messageFor(alice, 'again alice')]);
  await host.accept([messageFor(bob, 'again bob')]);
  await until(() => texts().length >= 2, 10_000);
  await host.whenSettled();
  expect(texts().toSorted()).toEqual(['re: again alice', 're: again bob']);
  expect(await sourceAtRest(store, alice.id)).toBe(true);
}

describe('a stored record that does not read back', () => {
  it('an inbox item: set aside without a turn, logged with its key and event id; the chat goes on', async () => {
    const { host, store, delivery, lines } = await storeWithDamage((database) => {
      database
        .prepare(
          "INSERT INTO inbox (source_id, event_id, item) VALUES (?, 'evt-damaged', '{\"text\": \"cut off')",
        )
        .run(alice.id);
    });

    await bothAnswer(host, store, () => delivery.texts);

    const logged = lines.filter(
      (line) => line.message === 'inbox item cannot be read; set aside without a turn',
    );
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'error',
        sourceId: alice.id,
        eventId: 'evt-damaged',
        key: expect.any(String) as string,
      }),
    ]);
    expect(await store.inbox(alice.id)).toEqual([]);
    expect(userTexts(await storedHistory(store, alice.id))).toEqual(['hello from alice', 'again alice']);
    await host.shutdown();
  });

  it('the newest inbox item: later messages of that chat are still accepted', async () => {
    const { host, delivery } = await storeWithDamage((database) => {
      database
        .prepare("INSERT INTO inbox (source_id, event_id, item) VALUES (?, 'evt-damaged', 'not json')")
        .run(alice.id);
    });

    // Accepted although the item before it does not read back (before: every accept threw).
    expect(await host.accept([messageFor(alice, 'after the damage')])).toMatchObject({ accepted: 1 });
    await host.whenSettled();
    expect(delivery.texts).toEqual(['re: after the damage']);
    await host.shutdown();
  });

  it('a history entry: history starts after it, the error names its seq; the chat goes on', async () => {
    const { host, store, delivery, lines } = await storeWithDamage((database) => {
      database
        .prepare('UPDATE history SET entry = \'{"role":"user"\' WHERE source_id = ? AND seq = 1')
        .run(alice.id);
    });

    await bothAnswer(host, store, () => delivery.texts);

    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'stored history entry cannot be read; history starts after it',
        sourceId: alice.id,
        record: 'history',
        key: '1',
      }),
    );
    expect(userTexts(await storedHistory(store, alice.id))).toEqual(['again alice']);
    expect(userTexts(await storedHistory(store, bob.id))).toEqual(['hello from bob', 'again bob']);
    await host.shutdown();
  });

  it('a history entry of another shape is not read as one', async () => {
    const { host, store, delivery, lines } = await storeWithDamage((database) => {
      database
        .prepare(
          'UPDATE history SET entry = \'{"role":"narrator","text":"x"}\' WHERE source_id = ? AND seq = 1',
        )
        .run(alice.id);
    });

    await bothAnswer(host, store, () => delivery.texts);

    expect(lines).toContainEqual(
      expect.objectContaining({
        sourceId: alice.id,
        record: 'history',
        key: '1',
        error: 'not a history entry (role "narrator")',
      }),
    );
    await host.shutdown();
  });

  it('the snapshot: the conversation starts at idle with its history, logged; the chat goes on', async () => {
    const { host, store, delivery, lines } = await storeWithDamage((database) => {
      database.prepare('UPDATE heads SET snapshot = \'{"status":\' WHERE source_id = ?').run(alice.id);
    });

    await bothAnswer(host, store, () => delivery.texts);

    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'stored snapshot cannot be read; starting at idle with its history',
        sourceId: alice.id,
        record: 'snapshot',
      }),
    );
    expect(userTexts(await storedHistory(store, alice.id))).toEqual(['hello from alice', 'again alice']);
    // The next checkpoint wrote a snapshot that reads back.
    expect((await storedHead(store, alice.id))?.snapshot).toMatchObject({ value: 'idle' });
    await host.shutdown();
  });

  it("an inbox item's set-aside shows as the chat's last turn (the inspector's why-no-answer)", async () => {
    const { host, store } = await storeWithDamage((database) => {
      database
        .prepare("INSERT INTO inbox (source_id, event_id, item) VALUES (?, 'evt-damaged', '[]')")
        .run(alice.id);
    });

    await host.recover();
    await until(async () => (await store.inbox(alice.id)).length === 0, 10_000);
    await host.whenSettled();

    const head = await storedHead(store, alice.id);
    const lastTurn = (head?.snapshot?.context as { lastTurn?: unknown }).lastTurn;
    expect(lastTurn).toMatchObject({ id: 'evt-damaged', stopReason: 'quarantined', noticeSent: false });
    expect(turnOutcome(lastTurn)).toMatchObject({ answered: false, noAnswer: 'quarantine' });
    await host.shutdown();
  });
});
