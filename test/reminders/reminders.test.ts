import { access, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HistoryEntry, InboundMessage, InboxItem, Source } from '../../src/domain/index.js';
import { retryKeyFor } from '../../src/line/retry-key.js';
import { silentLogger, type Logger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, callTools, type ModelRequest } from '../../src/model/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import {
  LocalReminderScheduler,
  createReminderTools,
  openSqliteReminderList,
  type Reminder,
  type ReminderList,
  type SqliteReminderList,
} from '../../src/reminders/index.js';
import { ToolRegistry } from '../../src/tools/index.js';
import { startKaiwaWithFakeLine } from '../support/kaiwa-under-test.js';
import { recordingLogger } from '../support/recording-logger.js';
import { webhookBody } from '../support/webhook-fixtures.js';

const directories: string[] = [];
const openLists: SqliteReminderList[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const list of openLists.splice(0)) list.close();
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});
async function freshDirectory() {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-reminders-'));
  directories.push(directory);
  return directory;
}
/** The list `npm start` keeps in `directory` (closed after the test). */
async function listIn(
  directory: string,
  options: { importFrom?: string; busyTimeoutMs?: number; logger?: Logger } = {},
) {
  const list = await openSqliteReminderList({ file: path.join(directory, 'reminders.db'), ...options });
  openLists.push(list);
  return list;
}

const source = { kind: 'user' as const, id: 'U' + '8'.repeat(32) };
const reminder = (overrides: Partial<Reminder> = {}): Reminder => ({
  id: 'r1',
  source,
  dueAt: 10_000,
  text: 'stretch',
  createdAt: 0,
  ...overrides,
});

describe('the local reminder scheduler', () => {
  it('delivers a reminder to the inbox when it is due, once', async () => {
    vi.useFakeTimers({ now: 0 });
    const delivered: InboundMessage[] = [];
    const scheduler = new LocalReminderScheduler({
      deliver: (message) => Promise.resolve(delivered.push(message)),
      clock: { now: () => Date.now() },
      logger: silentLogger,
    });

    await scheduler.schedule(reminder());
    await vi.advanceTimersByTimeAsync(9_999);
    expect(delivered).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.runOnlyPendingTimersAsync(); // delivered at the next turn of the event loop

    expect(delivered).toEqual([
      expect.objectContaining({
        eventId: `reminder:${source.id}:r1`,
        text: '[reminder due] stretch',
        lineEvent: 'reminder',
        source,
      }),
    ]);
    expect(delivered[0]?.replyToken).toBeUndefined();
    expect(await scheduler.list(source.id)).toEqual([]);
  });

  it('survives a restart through its list, and fires one that fell due while down', async () => {
    const directory = await freshDirectory();
    let now = 0;
    const clock = { now: () => now };
    const firstList = await listIn(directory);
    const first = new LocalReminderScheduler({
      deliver: () => Promise.resolve(),
      clock,
      logger: silentLogger,
      list: firstList,
    });
    await first.schedule(reminder({ id: 'late', dueAt: 5_000 }));
    await first.schedule(reminder({ id: 'later', dueAt: 60_000_000 }));
    await first.schedule(reminder({ id: 'dropped', dueAt: 70_000_000 }));
    expect(await first.cancel(source.id, 'dropped')).toBe(true);
    first.stop();
    firstList.close();

    now = 6_000; // kaiwa was down when "late" fell due
    const delivered: string[] = [];
    const secondList = await listIn(directory);
    const second = new LocalReminderScheduler({
      deliver: (message) => Promise.resolve(delivered.push(message.eventId)),
      clock,
      logger: silentLogger,
      list: secondList,
    });
    await second.start();
    await vi.waitFor(() => expect(delivered).toEqual([`reminder:${source.id}:late`]));
    expect((await second.list(source.id)).map((item) => item.id)).toEqual(['later']);
    // Delivered, so gone from the list too: a third start fires nothing again.
    await vi.waitFor(async () => expect((await secondList.all()).map((item) => item.id)).toEqual(['later']));
    second.stop();
  });

  it('fires many overdue reminders one at a time, letting I/O through between them', async () => {
    // A restart after downtime: each delivery starts a turn (here 2 ms of work). All at once
    // held the process for the whole burst — a webhook waited seconds for its answer.
    const overdue = 200;
    const list = await listIn(await freshDirectory());
    for (let index = 0; index < overdue; index++) await list.put(reminder({ id: `r${index}`, dueAt: 5 }));
    let delivered = 0;
    let deliveredWhenIoRan: number | undefined;
    const scheduler = new LocalReminderScheduler({
      deliver: () => {
        if (++delivered === 1) void stat(tmpdir()).then(() => (deliveredWhenIoRan = delivered));
        const until = performance.now() + 2;
        while (performance.now() < until); // the turn's synchronous work
        return Promise.resolve();
      },
      clock: { now: () => 1_000 },
      logger: silentLogger,
      list,
    });
    await scheduler.start();
    await vi.waitFor(() => expect(delivered).toBe(overdue), { timeout: 5_000 });
    expect(deliveredWhenIoRan).toBeLessThan(overdue / 4);
    await vi.waitFor(async () => expect(await list.all()).toEqual([]));
    scheduler.stop();
  });

  it('keeps a reminder whose delivery failed and tries again', async () => {
    let attempts = 0;
    const scheduler = new LocalReminderScheduler({
      deliver: () => (++attempts === 1 ? Promise.reject(new Error('store down')) : Promise.resolve()),
      clock: { now: () => 20_000 },
      logger: silentLogger,
      retryMs: 5,
    });
    await scheduler.schedule(reminder());
    await vi.waitFor(() => expect(attempts).toBe(2));
    await vi.waitFor(async () => expect(await scheduler.list(source.id)).toEqual([]));
  });
});

describe('a repeating reminder', () => {
  // 2026-11-27 is a Friday; Tokyo is UTC+9, without daylight saving time.
  const tokyoEight = (day: string) => Date.parse(`${day}T08:00:00+09:00`);
  const weekdays = { repeat: 'weekdays', timeZone: 'Asia/Tokyo', hour: 8, minute: 0, weekday: 5 } as const;

  it('comes at each occurrence, each its own inbox item, and then waits for the next one', async () => {
    vi.useFakeTimers({ now: tokyoEight('2026-11-27') - 1_000 });
    const delivered: InboundMessage[] = [];
    const list = await listIn(await freshDirectory());
    const scheduler = new LocalReminderScheduler({
      deliver: (message) => Promise.resolve(delivered.push(message)),
      clock: { now: () => Date.now() },
      logger: silentLogger,
      list,
    });
    await scheduler.schedule(reminder({ dueAt: tokyoEight('2026-11-27'), recurrence: weekdays }));

    await vi.advanceTimersByTimeAsync(1_000);
    await vi.runOnlyPendingTimersAsync();
    // Friday's, then Monday's: Saturday and Sunday are skipped.
    await vi.advanceTimersByTimeAsync(tokyoEight('2026-11-30') - Date.now());
    await vi.runOnlyPendingTimersAsync();

    expect(delivered.map((message) => [message.eventId, message.dueAt, message.text])).toEqual([
      [
        `reminder:${source.id}:r1:${tokyoEight('2026-11-27')}`,
        tokyoEight('2026-11-27'),
        '[reminder due] stretch',
      ],
      [
        `reminder:${source.id}:r1:${tokyoEight('2026-11-30')}`,
        tokyoEight('2026-11-30'),
        '[reminder due] stretch',
      ],
    ]);
    // Kept, at its next occurrence: across a restart too.
    expect((await scheduler.list(source.id)).map((item) => item.dueAt)).toEqual([tokyoEight('2026-12-01')]);
    expect((await list.all()).map((item) => item.dueAt)).toEqual([tokyoEight('2026-12-01')]);
    scheduler.stop();
  });

  it('stays cancelled when it is cancelled while an occurrence is on its way to the inbox', async () => {
    const list = await listIn(await freshDirectory());
    let entered: () => void = () => undefined;
    let delivering = false;
    const scheduler = new LocalReminderScheduler({
      deliver: () => {
        delivering = true;
        return new Promise<void>((resolve) => (entered = resolve));
      },
      clock: { now: () => tokyoEight('2026-11-27') },
      logger: silentLogger,
      list,
    });
    await scheduler.schedule(reminder({ dueAt: tokyoEight('2026-11-27'), recurrence: weekdays }));
    await vi.waitFor(() => expect(delivering).toBe(true));

    expect(await scheduler.cancel(source.id, 'r1')).toBe(true);
    entered();
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(await scheduler.list(source.id)).toEqual([]);
    expect(await list.all()).toEqual([]);
    scheduler.stop();
  });

  it('comes once, late, after days down, then keeps its rhythm', async () => {
    const list = await listIn(await freshDirectory());
    await list.put(
      reminder({ dueAt: tokyoEight('2026-11-23'), recurrence: { ...weekdays, repeat: 'daily' } }),
    );
    const now = tokyoEight('2026-11-27') + 3_600_000;
    const delivered: InboundMessage[] = [];
    const scheduler = new LocalReminderScheduler({
      deliver: (message) => Promise.resolve(delivered.push(message)),
      clock: { now: () => now },
      logger: silentLogger,
      list,
    });
    await scheduler.start();
    await vi.waitFor(() => expect(delivered).toHaveLength(1));

    expect(delivered[0]?.dueAt).toBe(tokyoEight('2026-11-23'));
    await vi.waitFor(async () =>
      expect((await list.all()).map((item) => item.dueAt)).toEqual([tokyoEight('2026-11-28')]),
    );
    scheduler.stop();
  });
});

describe('reminder ids: UUIDs, kept and claimed per source', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  const alice = source;
  const bob = { kind: 'group' as const, id: 'C' + '9'.repeat(32) };
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  function toolsOn(
    scheduler: LocalReminderScheduler,
    options: { newId?: () => string; maxPerSource?: number; clock?: { now(): number } } = {},
  ) {
    const { clock = { now: () => now }, ...toolOptions } = options;
    const registry = new ToolRegistry();
    for (const tool of createReminderTools({ scheduler, ...toolOptions })) registry.register(tool);
    return (name: string, args: Record<string, unknown>, inSource: Source, callId = 'c', resumed = false) =>
      registry.execute(
        { id: callId, name, args: args as never },
        { source: inSource, turnId: 't', signal: new AbortController().signal, clock, resumed },
      );
  }

  const localScheduler = () =>
    new LocalReminderScheduler({
      deliver: () => Promise.resolve(),
      clock: { now: () => now },
      logger: silentLogger,
    });

  it('set_reminder gives every call its own UUID, the same one when the call runs again: one reminder', async () => {
    const scheduler = localScheduler();
    const call = toolsOn(scheduler);
    const first = (await call('set_reminder', { text: 'a', delay_minutes: 1 }, alice, 'c1')).response;
    const second = (await call('set_reminder', { text: 'b', delay_minutes: 1 }, alice, 'c2')).response;
    // A turn resumed after its process died runs a call whose intent was durable once more.
    const again = await call('set_reminder', { text: 'a', delay_minutes: 1 }, alice, 'c1');
    expect(first.id).toMatch(UUID);
    expect(second.id).toMatch(UUID);
    expect(first.id).not.toBe(second.id);
    expect(again).toMatchObject({ isError: false, response: first });
    expect((await scheduler.list(alice.id)).map((reminder) => reminder.text).sort()).toEqual(['a', 'b']);
  });

  it('cancel_reminder run again after its process died answers cancelled: its first run left nothing to find', async () => {
    const scheduler = localScheduler();
    const call = toolsOn(scheduler);
    const id = (await call('set_reminder', { text: 'tea', delay_minutes: 1 }, alice, 'c1')).response
      .id as string;
    expect((await call('cancel_reminder', { id }, alice, 'c2')).response).toEqual({ cancelled: true });
    // The same call resumed (its intent was loaded, not written by this process).
    expect((await call('cancel_reminder', { id }, alice, 'c2', true)).response).toEqual({ cancelled: true });
    // A call that was not resumed has no earlier run to account for.
    expect((await call('cancel_reminder', { id }, alice, 'c3')).response).toEqual({
      error: `no reminder ${id} in this chat`,
    });
  });

  it('a call run again after its time has come finds its reminder rather than refusing the time', async () => {
    let clock = now;
    const scheduler = localScheduler();
    const call = toolsOn(scheduler, { clock: { now: () => clock } });
    const when = new Date(now + 60_000).toISOString();
    const first = await call('set_reminder', { text: 'tea', when }, alice, 'c1');
    clock = now + 120_000; // the turn was resumed two minutes later, its reminder not yet delivered
    const again = await call('set_reminder', { text: 'tea', when }, alice, 'c1');
    expect(again).toMatchObject({ isError: false, response: first.response });
    expect(await scheduler.list(alice.id)).toHaveLength(1);
  });

  it('a set_reminder call that timed out while it waited for the one before it schedules nothing', async () => {
    const scheduler = localScheduler();
    // A slow scheduler (EventBridge under load): each list takes 600 ms, so the second call,
    // queued behind the first, cannot be done within its 1 s.
    const slow = Object.assign(Object.create(scheduler) as LocalReminderScheduler, {
      list: async (sourceId: string) => {
        await new Promise((resolve) => setTimeout(resolve, 600));
        return scheduler.list(sourceId);
      },
    });
    const registry = new ToolRegistry({ defaultTimeoutMs: 1_000 });
    for (const tool of createReminderTools({ scheduler: slow })) registry.register(tool);
    const call = (callId: string) =>
      registry.execute(
        { id: callId, name: 'set_reminder', args: { text: callId, delay_minutes: 5 } },
        { source: alice, turnId: 't', signal: new AbortController().signal, clock: { now: () => now } },
      );

    const [first, second] = await Promise.all([call('c1'), call('c2')]);
    await new Promise((resolve) => setTimeout(resolve, 800)); // past when the second would have run

    expect(first.isError).toBe(false);
    expect(second).toMatchObject({
      isError: true,
      response: { error: expect.stringContaining('timed out') as string },
    });
    expect((await scheduler.list(alice.id)).map((reminder) => reminder.text)).toEqual(['c1']);
  });

  it("set_reminder calls of one step, run side by side, never pass the chat's limit", async () => {
    const scheduler = localScheduler();
    const call = toolsOn(scheduler, { maxPerSource: 2 });
    const outcomes = await Promise.all(
      ['c1', 'c2', 'c3', 'c4', 'c5'].map((callId) =>
        call('set_reminder', { text: callId, delay_minutes: 1 }, alice, callId),
      ),
    );
    expect(outcomes.filter((outcome) => !outcome.isError)).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome.isError)).toHaveLength(3);
    expect(await scheduler.list(alice.id)).toHaveLength(2);
  });

  it('two chats given the same id both keep their reminder: across a restart, when due, and in the inbox', async () => {
    const directory = await freshDirectory();
    let clock = now;
    const options = { clock: { now: () => clock }, logger: silentLogger };
    const firstList = await listIn(directory);
    const first = new LocalReminderScheduler({
      ...options,
      list: firstList,
      deliver: () => Promise.resolve(),
    });
    const collidingId = () => '0b7e6f8a-2c1d-4e5f-9a0b-1c2d3e4f5a6b';
    const call = toolsOn(first, { newId: collidingId });
    await call('set_reminder', { text: 'water the plants', delay_minutes: 1 }, alice);
    await call('set_reminder', { text: 'book the hall', delay_minutes: 2 }, bob);
    expect((await first.list(alice.id)).map((item) => item.text)).toEqual(['water the plants']);
    expect((await first.list(bob.id)).map((item) => item.text)).toEqual(['book the hall']);
    // Bob's chat cancels "its" id: Alice's reminder with the same id stays.
    await call(
      'set_reminder',
      { text: 'spare', delay_minutes: 3 },
      { kind: 'user', id: 'U' + '7'.repeat(32) },
    );
    expect(
      (await call('cancel_reminder', { id: collidingId() }, { kind: 'user', id: 'U' + '7'.repeat(32) }))
        .response,
    ).toEqual({
      cancelled: true,
    });
    first.stop();
    firstList.close();

    clock = now + 5 * 60_000; // both fell due while kaiwa was down
    const store = new MemorySourceStore();
    const second = new LocalReminderScheduler({
      ...options,
      list: await listIn(directory),
      deliver: (message) => store.accept(message),
    });
    await second.start();
    await vi.waitFor(async () => {
      expect((await store.inbox(alice.id)).map(({ item }) => textOf(item!))).toEqual([
        '[reminder due] water the plants',
      ]);
      expect((await store.inbox(bob.id)).map(({ item }) => textOf(item!))).toEqual([
        '[reminder due] book the hall',
      ]);
    });
    await vi.waitFor(async () => expect(await second.list(alice.id)).toEqual([]));
    expect(await second.list(bob.id)).toEqual([]);
    second.stop();
  });

  it('imports a file of the first format (one list, 8-character ids) without losing a reminder', async () => {
    const directory = await freshDirectory();
    const file = path.join(directory, 'reminders.json');
    const old = [
      { id: '3f2a9c1b', source: alice, dueAt: now + 60_000, text: 'stretch', createdAt: now },
      {
        id: 'a71c0e44',
        source: bob,
        dueAt: now + 120_000,
        text: 'lunch',
        createdAt: now,
        requestedBy: alice.id,
      },
    ];
    await writeFile(file, JSON.stringify(old));
    const options = { deliver: () => Promise.resolve(), clock: { now: () => now }, logger: silentLogger };

    const importedList = await listIn(directory, { importFrom: file });
    const imported = new LocalReminderScheduler({ ...options, list: importedList });
    await imported.start();
    expect(await imported.list(alice.id)).toEqual([old[0]]);
    expect(await imported.list(bob.id)).toEqual([old[1]]);
    imported.stop();
    importedList.close();
    // Imported once: the file is renamed, and the reminders are in reminders.db.
    await expect(access(file)).rejects.toThrow();
    await access(`${file}.imported`);

    const again = new LocalReminderScheduler({
      ...options,
      list: await listIn(directory, { importFrom: file }),
    });
    await again.start();
    expect(await again.list(alice.id)).toEqual([old[0]]);
    expect(await again.list(bob.id)).toEqual([old[1]]);
    // An old id still cancels its reminder (the model may have told the user that id).
    expect(await again.cancel(alice.id, '3f2a9c1b')).toBe(true);
    again.stop();
  });

  it("imports the previous release's reminders.json (one list per source) the same way", async () => {
    const directory = await freshDirectory();
    const file = path.join(directory, 'reminders.json');
    const waiting = {
      [alice.id]: [
        { id: crypto.randomUUID(), source: alice, dueAt: now + 60_000, text: 'a', createdAt: now },
      ],
      [bob.id]: [{ id: crypto.randomUUID(), source: bob, dueAt: now + 90_000, text: 'b', createdAt: now }],
    };
    await writeFile(file, JSON.stringify({ version: 2, sources: waiting }));
    const list = await listIn(directory, { importFrom: file });
    expect(await list.all()).toEqual(expect.arrayContaining([...waiting[alice.id]!, ...waiting[bob.id]!]));
    expect(await list.all()).toHaveLength(2);
    await access(`${file}.imported`);
  });

  it('refuses to start on a reminders file it cannot read, naming the file and keeping it', async () => {
    const directory = await freshDirectory();
    const file = path.join(directory, 'reminders.json');
    await writeFile(file, '{"version": 3}');
    await expect(listIn(directory, { importFrom: file })).rejects.toThrow(file);
    await access(file);
    // Nothing half-open is left: the list opens once the file is mended.
    await writeFile(file, JSON.stringify({ version: 2, sources: {} }));
    expect(await (await listIn(directory, { importFrom: file })).all()).toEqual([]);
  });

  it('schedules the rest past a damaged row of reminders.db, logs it naming the file, and keeps it', async () => {
    const directory = await freshDirectory();
    const list = await listIn(directory);
    const fine: Reminder = { id: 'fine', source: alice, dueAt: now + 60_000, text: 'a', createdAt: now };
    await list.put(fine);
    list.close();
    const file = path.join(directory, 'reminders.db');
    const database = new DatabaseSync(file);
    database
      .prepare('INSERT INTO reminders (source_id, id, reminder) VALUES (?, ?, ?)')
      .run(alice.id, 'torn', '{"id": "torn", "sou');
    database.close();
    const { lines, logger } = recordingLogger('info');
    const reopened = await listIn(directory, { logger });
    const scheduler = new LocalReminderScheduler({
      deliver: () => Promise.resolve(),
      clock: { now: () => now },
      logger: silentLogger,
      list: reopened,
    });

    // Before, one damaged row stopped npm start.
    await scheduler.start();
    expect((await scheduler.list(alice.id)).map(({ id }) => id)).toEqual(['fine']);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'reminder row cannot be read; left in the file, not scheduled',
        file,
        sourceId: alice.id,
        reminderId: 'torn',
      }),
    );
    scheduler.stop();
    const left = new DatabaseSync(file);
    expect(left.prepare('SELECT id FROM reminders ORDER BY id').all()).toEqual([
      { id: 'fine' },
      { id: 'torn' },
    ]);
    left.close();
  });

  it('refuses a reminders.db written by a newer kaiwa, naming the file', async () => {
    const directory = await freshDirectory();
    const database = new DatabaseSync(path.join(directory, 'reminders.db'));
    database.exec('PRAGMA user_version = 7');
    database.close();
    await expect(listIn(directory)).rejects.toThrow(
      `cannot open the reminders database ${path.join(directory, 'reminders.db')}: schema 7 is not 1`,
    );
  });
});

function textOf(item: InboxItem): string | undefined {
  return 'text' in item ? item.text : undefined;
}

describe('the reminder tools', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  function tools() {
    const scheduler = new LocalReminderScheduler({
      deliver: () => Promise.resolve(),
      clock: { now: () => now },
      logger: silentLogger,
    });
    const registry = new ToolRegistry();
    let id = 0;
    for (const tool of createReminderTools({
      scheduler,
      maxPerSource: 2,
      newId: () => `id${++id}`,
      defaultTimeZone: 'Asia/Tokyo',
    }))
      registry.register(tool);
    const call = (name: string, args: Record<string, unknown>, inSource: Source = source) =>
      registry.execute(
        { id: 'c', name, args: args as never },
        { source: inSource, turnId: 't', signal: new AbortController().signal, clock: { now: () => now } },
      );
    return { call, scheduler };
  }

  it.each([
    [
      'a delay',
      { text: 'tea', delay_minutes: 5 },
      { id: 'id1', due: '2026-11-22T10:05:00.000Z', text: 'tea' },
    ],
    [
      'an absolute time',
      { text: 'tea', when: '2026-11-22T20:00:00+09:00' },
      { id: 'id1', due: '2026-11-22T11:00:00.000Z' },
    ],
    [
      'both',
      { text: 'tea', delay_minutes: 5, when: '2026-11-22T20:00:00+09:00' },
      { error: 'give exactly one of when or delay_minutes' },
    ],
    ['neither', { text: 'tea' }, { error: 'give exactly one of when or delay_minutes' }],
    [
      'a time in the past',
      { text: 'tea', when: '2026-11-22T09:00:00Z' },
      { error: 'that time has already passed' },
    ],
    [
      'a time two years ahead',
      { text: 'tea', when: '2028-11-22T09:00:00Z' },
      { error: 'that is too far ahead' },
    ],
  ])('set_reminder with %s', async (_case, args, expected) => {
    const { call } = tools();
    expect((await call('set_reminder', args)).response).toMatchObject(expected);
  });

  it.each([
    [
      'every weekday at 8, Tokyo time',
      { text: 'medicine', when: '2026-11-23T08:00:00+09:00', repeat: 'weekdays', time_zone: 'Asia/Tokyo' },
      { due: '2026-11-22T23:00:00.000Z', repeat: 'weekdays', time_zone: 'Asia/Tokyo' },
    ],
    [
      "daily in the bot's zone when none is named, from the whole minute asked for",
      { text: 'medicine', when: '2026-11-22T19:30:45+09:00', repeat: 'daily' },
      { due: '2026-11-22T10:30:00.000Z', repeat: 'daily', time_zone: 'Asia/Tokyo' },
    ],
    [
      "every day at 8 given as this morning's, past already: from tomorrow's",
      { text: 'medicine', when: '2026-11-22T08:00:00+09:00', repeat: 'daily' },
      { due: '2026-11-22T23:00:00.000Z', repeat: 'daily', time_zone: 'Asia/Tokyo' },
    ],
    [
      'a zone without a repeat',
      { text: 'medicine', delay_minutes: 5, time_zone: 'Asia/Tokyo' },
      { error: 'time_zone is for a repeating reminder: give repeat too' },
    ],
    [
      'an unknown zone',
      { text: 'medicine', delay_minutes: 5, repeat: 'daily', time_zone: 'Mars/Olympus' },
      { error: 'unknown time zone Mars/Olympus: give an IANA zone such as Asia/Tokyo' },
    ],
  ])('set_reminder repeating: %s', async (_case, args, expected) => {
    const { call, scheduler } = tools();
    expect((await call('set_reminder', args)).response).toMatchObject(expected);
    const [kept] = await scheduler.list(source.id);
    if ('error' in expected) expect(kept).toBeUndefined();
    else expect(kept?.recurrence).toMatchObject({ repeat: expected.repeat, timeZone: expected.time_zone });
  });

  it('set_reminder reads a leap second as the second after 23:59:59, and schedules nothing for a time it cannot read', async () => {
    const { call, scheduler } = tools();
    // A leap second passes the date-time format, but Date.parse reads it as no time at all: the
    // reminder was scheduled with no due time (fired at once) and the answer then threw.
    expect((await call('set_reminder', { text: 'tea', when: '2026-12-31T23:59:60Z' })).response).toEqual({
      id: 'id1',
      due: '2027-01-01T00:00:00.000Z',
      text: 'tea',
    });
    expect(
      (await call('set_reminder', { text: 'tea', when: '2026-12-31T23:59:60.5+00:00' })).response,
    ).toMatchObject({ due: '2027-01-01T00:00:00.500Z' });
    await scheduler.cancel(source.id, 'id1');
    await scheduler.cancel(source.id, 'id2');
    const unreadable = await call('set_reminder', { text: 'tea', when: '2026-12-31T23:59:61Z' });
    expect(unreadable).toMatchObject({ isError: true });
    expect(await scheduler.list(source.id)).toEqual([]);
  });

  it('set_reminder is an async tool: it answers at once and marks its result async', async () => {
    const { call } = tools();
    expect(await call('set_reminder', { text: 'tea', delay_minutes: 1 })).toMatchObject({
      async: true,
      isError: false,
    });
  });

  it('refuses more reminders than the per-chat cap', async () => {
    const { call } = tools();
    await call('set_reminder', { text: 'a', delay_minutes: 1 });
    await call('set_reminder', { text: 'b', delay_minutes: 2 });
    expect((await call('set_reminder', { text: 'c', delay_minutes: 3 })).response.error).toContain(
      'already has 2',
    );
  });

  it("lists and cancels only this chat's reminders, whatever the arguments say", async () => {
    const { call } = tools();
    const other = { kind: 'group' as const, id: 'C' + '9'.repeat(32) };
    await call('set_reminder', { text: 'mine', delay_minutes: 1 });

    expect((await call('list_reminders', {}, other)).response).toEqual({ reminders: [] });
    expect((await call('cancel_reminder', { id: 'id1' }, other)).response).toEqual({
      error: 'no reminder id1 in this chat',
    });
    expect((await call('list_reminders', { sourceId: source.id }, other)).isError).toBe(true);
    expect((await call('list_reminders', {})).response).toMatchObject({
      reminders: [{ id: 'id1', text: 'mine' }],
    });
    expect((await call('cancel_reminder', { id: 'id1' })).response).toEqual({ cancelled: true });
  });
});

describe('a reminder end to end', () => {
  /** Sets a reminder 300 ms ahead on the first turn; writes the reminder message on the reminder's turn. */
  function reminderModel() {
    return new ScriptedModel(
      [
        (request: ModelRequest) => {
          const last = request.history.at(-1);
          const lastUser = request.history.findLast(
            (entry): entry is Extract<HistoryEntry, { role: 'user' }> => entry.role === 'user',
          );
          if (last?.role === 'tool')
            return callReply(lastUser?.text.startsWith('[reminder due]') ? 'x' : 'Reminder set.');
          if (lastUser?.text.startsWith('[reminder due]'))
            return callReply(`Reminder: ${lastUser.text.slice(15)}`);
          return callTools([
            'set_reminder',
            { text: 'drink water', when: new Date(Date.now() + 300).toISOString() },
          ]);
        },
      ],
      { repeatLast: true },
    );
  }

  it("comes back through the inbox as a turn whose answer is pushed with the turn's retry key", async () => {
    const model = reminderModel();
    const running = await startKaiwaWithFakeLine({ model });
    try {
      const event = {
        type: 'message',
        mode: 'active',
        timestamp: Date.now(),
        source: { type: 'user', userId: source.id },
        webhookEventId: '01REMINDER0000000000000001',
        deliveryContext: { isRedelivery: false },
        replyToken: running.line.emulator.issueReplyToken(source.id),
        message: { type: 'text', id: '1', quoteToken: 'q', text: 'remind me to drink water' },
      };
      await running.post(JSON.stringify(webhookBody([event as never])));

      await vi.waitFor(() => expect(running.line.requestsTo('/v2/bot/message/push')).toHaveLength(1), {
        timeout: 5000,
      });
      await running.kaiwa.host.whenSettled();

      const [reply] = running.line.requestsTo('/v2/bot/message/reply');
      expect(reply?.body).toMatchObject({ messages: [{ text: 'Reminder set.' }] });
      const [push] = running.line.requestsTo('/v2/bot/message/push');
      expect(push?.body).toMatchObject({ to: source.id, messages: [{ text: 'Reminder: drink water' }] });
      const reminderTurn = model.calls.find((call) =>
        call.history.some((entry) => entry.role === 'user' && entry.text.startsWith('[reminder due]')),
      );
      const reminderEvent = reminderTurn?.history.find(
        (entry) => entry.role === 'user' && entry.text.startsWith('[reminder due]'),
      );
      expect(push?.headers['x-line-retry-key']).toBe(
        retryKeyFor((reminderEvent as { eventId: string }).eventId, 0),
      );
    } finally {
      await running.close();
    }
  });

  it('survives a restart of the local runtime', async () => {
    const dataDir = await freshDirectory();
    const first = await startKaiwaWithFakeLine({
      model: new ScriptedModel([
        callTools(['set_reminder', { text: 'stand up', delay_minutes: 1 }]),
        callReply('ok'),
      ]),
      env: { STORE: 'sqlite', DATA_DIR: dataDir },
    });
    const event = {
      type: 'message',
      mode: 'active',
      timestamp: Date.now(),
      source: { type: 'user', userId: source.id },
      webhookEventId: '01REMINDER0000000000000002',
      deliveryContext: { isRedelivery: false },
      replyToken: first.line.emulator.issueReplyToken(source.id),
      message: { type: 'text', id: '2', quoteToken: 'q', text: 'remind me in a minute' },
    };
    await first.post(JSON.stringify(webhookBody([event as never])));
    await first.kaiwa.host.whenSettled();
    await first.close();

    const scheduler = new LocalReminderScheduler({
      deliver: () => Promise.resolve(),
      clock: { now: () => Date.now() },
      logger: silentLogger,
      list: await listIn(dataDir),
    });
    await scheduler.start();
    expect((await scheduler.list(source.id)).map((item) => item.text)).toEqual(['stand up']);
    scheduler.stop();
  });

  it('one that fell due while kaiwa was down comes saying when it was due, to the model and in the text sent without it', async () => {
    // It came hours late looking as if it were on time: "time for your medicine" at 21:00 for 09:00.
    const dataDir = await freshDirectory();
    const dueAt = Date.now() - 3 * 3_600_000 - 60_000;
    const list = await listIn(dataDir);
    await list.put(reminder({ id: 'medicine', text: 'take the medicine', dueAt }));
    list.close();
    openLists.splice(openLists.indexOf(list), 1);

    const model = new ScriptedModel([new Error('503 from the model')], { repeatLast: true });
    const running = await startKaiwaWithFakeLine({ model, env: { STORE: 'sqlite', DATA_DIR: dataDir } });
    try {
      await vi.waitFor(() => expect(running.line.requestsTo('/v2/bot/message/push')).toHaveLength(1), {
        timeout: 5000,
      });
      await running.kaiwa.host.whenSettled();

      const [push] = running.line.requestsTo('/v2/bot/message/push');
      expect(push?.body).toMatchObject({
        to: source.id,
        messages: [{ text: '⏰ take the medicine (late: it was due 3 hours ago)' }],
      });
      const seen = model.calls[0]?.history.find((entry) => entry.role === 'user');
      expect(seen).toMatchObject({ event: 'reminder', dueAt, text: '[reminder due] take the medicine' });
    } finally {
      await running.close();
    }
  });

  it('are cancelled when the user unfollows: an unfollowed source keeps nothing scheduled', async () => {
    const dataDir = await freshDirectory();
    const running = await startKaiwaWithFakeLine({
      model: new ScriptedModel([
        callTools(['set_reminder', { text: 'stand up', delay_minutes: 60 }]),
        callReply('ok'),
      ]),
      env: { STORE: 'sqlite', DATA_DIR: dataDir },
    });
    const base = {
      mode: 'active',
      timestamp: Date.now(),
      source: { type: 'user', userId: source.id },
      deliveryContext: { isRedelivery: false },
    };
    const ask = {
      ...base,
      type: 'message',
      webhookEventId: '01REMINDER0000000000000003',
      replyToken: running.line.emulator.issueReplyToken(source.id),
      message: { type: 'text', id: '3', quoteToken: 'q', text: 'remind me in an hour' },
    };
    await running.post(JSON.stringify(webhookBody([ask as never])));
    await running.kaiwa.host.whenSettled();
    const unfollow = { ...base, type: 'unfollow', webhookEventId: '01REMINDER0000000000000004' };
    await running.post(JSON.stringify(webhookBody([unfollow as never])));
    await running.kaiwa.host.whenSettled();
    await running.close();

    const scheduler = new LocalReminderScheduler({
      deliver: () => Promise.resolve(),
      clock: { now: () => Date.now() },
      logger: silentLogger,
      list: await listIn(dataDir),
    });
    await scheduler.start();
    expect(await scheduler.list(source.id)).toEqual([]);
    scheduler.stop();
  });
});

describe('the local reminder scheduler when its list cannot be written', () => {
  /** A list on a disk that, while blocked, fails every write. */
  function listOnAFlakyDisk() {
    const rows = new Map<string, Reminder>();
    let blocked = false;
    const write = (change: () => void) =>
      blocked ? Promise.reject(new Error('ENOSPC: no space left on device')) : Promise.resolve(change());
    const list: ReminderList = {
      all: () => Promise.resolve([...rows.values()]),
      put: (item) => write(() => rows.set(`${item.source.id}/${item.id}`, item)),
      remove: (sourceId, id) => write(() => rows.delete(`${sourceId}/${id}`)),
    };
    return {
      list,
      block: () => (blocked = true),
      heal: () => (blocked = false),
      writtenIds: () => [...rows.values()].map((item) => item.id),
    };
  }
  const waitingIds = async (scheduler: LocalReminderScheduler) =>
    (await scheduler.list(source.id)).map((item) => item.id);

  it('keeps no reminder it could not write, and cancels none it could not write away', async () => {
    const disk = listOnAFlakyDisk();
    const delivered: string[] = [];
    let now = 0;
    const scheduler = new LocalReminderScheduler({
      deliver: (message) => Promise.resolve(delivered.push(message.eventId)),
      clock: { now: () => now },
      logger: silentLogger,
      list: disk.list,
    });
    disk.block();
    // set_reminder tells the user it failed: the reminder must not fire all the same.
    await expect(scheduler.schedule(reminder({ id: 'refused', dueAt: 20 }))).rejects.toThrow();
    expect(await waitingIds(scheduler)).toEqual([]);

    disk.heal();
    await scheduler.schedule(reminder({ id: 'staying', dueAt: 40 }));
    disk.block();
    // Told the cancel failed, the user still counts on the reminder: it stays, and fires.
    await expect(scheduler.cancel(source.id, 'staying')).rejects.toThrow();
    expect(await waitingIds(scheduler)).toEqual(['staying']);

    disk.heal();
    now = 50;
    await vi.waitFor(() => expect(delivered).toEqual([`reminder:${source.id}:staying`]), { timeout: 2_000 });
    expect(delivered).not.toContain(`reminder:${source.id}:refused`);
    expect(disk.writtenIds()).toEqual([]);
    scheduler.stop();
  });

  it('a replaced reminder whose write fails is the one it replaced again', async () => {
    const disk = listOnAFlakyDisk();
    const scheduler = new LocalReminderScheduler({
      deliver: () => Promise.resolve(),
      clock: { now: () => 0 },
      logger: silentLogger,
      list: disk.list,
    });
    await scheduler.schedule(reminder({ id: 'r', text: 'first' }));
    disk.block();
    await expect(scheduler.schedule(reminder({ id: 'r', text: 'second' }))).rejects.toThrow();
    expect((await scheduler.list(source.id)).map((item) => item.text)).toEqual(['first']);
    scheduler.stop();
  });

  it('delivers a due reminder once although the list cannot then be written, and says so', async () => {
    const disk = listOnAFlakyDisk();
    const { lines, logger } = recordingLogger();
    let deliveries = 0;
    let now = 0;
    const scheduler = new LocalReminderScheduler({
      deliver: () => Promise.resolve(++deliveries),
      clock: { now: () => now },
      logger,
      list: disk.list,
      retryMs: 5,
    });
    await scheduler.schedule(reminder({ id: 'due', dueAt: 30 }));
    await scheduler.schedule(reminder({ id: 'next', dueAt: 60_000 }));
    disk.block();
    now = 30;

    await vi.waitFor(
      () =>
        expect(lines.map((line) => line.message)).toContain(
          'reminder delivered, but not removed from the reminders list',
        ),
      { timeout: 2_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(deliveries).toBe(1);
    expect(lines.map((line) => line.message)).not.toContain('reminder could not enter the inbox; retrying');
    expect(await waitingIds(scheduler)).toEqual(['next']);
    scheduler.stop();
  });

  it('on SQLite: a write refused by a locked database rejects and keeps nothing', async () => {
    const directory = await freshDirectory();
    const list = await listIn(directory, { busyTimeoutMs: 20 });
    const scheduler = new LocalReminderScheduler({
      deliver: () => Promise.resolve(),
      clock: { now: () => 0 },
      logger: silentLogger,
      list,
    });
    await scheduler.schedule(reminder({ id: 'kept', dueAt: 60_000 }));
    const other = new DatabaseSync(path.join(directory, 'reminders.db'));
    other.exec('BEGIN IMMEDIATE');
    try {
      await expect(scheduler.schedule(reminder({ id: 'refused', dueAt: 60_000 }))).rejects.toThrow(/locked/);
      await expect(scheduler.cancel(source.id, 'kept')).rejects.toThrow(/locked/);
      expect(await waitingIds(scheduler)).toEqual(['kept']);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await list.all()).map((item) => item.id)).toEqual(['kept']);
    await scheduler.schedule(reminder({ id: 'after', dueAt: 60_000 }));
    expect((await list.all()).map((item) => item.id).sort()).toEqual(['after', 'kept']);
    scheduler.stop();
  });
});
