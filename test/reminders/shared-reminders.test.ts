import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { InboundMessage, Source } from '../../src/domain/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, callTools } from '../../src/model/index.js';
import { DynamoDbSourceStore } from '../../src/persistence/index.js';
import {
  DynamoDbSharedReminders,
  PolledReminderScheduler,
  type Reminder,
  type SharedReminders,
} from '../../src/reminders/index.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';
import { recordingLogger } from '../support/recording-logger.js';
import { webhookBody } from '../support/webhook-fixtures.js';

// `npm start` on DynamoDB, several processes on one table (docs/persistence.md, "Reminders of
// npm start"): a reminder belongs to the deployment, not to the process that set it.

const source: Source = { kind: 'user', id: 'U' + '5'.repeat(32) };
const clock = { now: () => Date.now() };

describe.skipIf(!dynamoDbLocalRequired())('reminders shared by the processes of one DynamoDB table', () => {
  let dynamodb: DynamoDbLocal;
  const stops: (() => unknown)[] = [];
  beforeAll(async () => {
    dynamodb = await startDynamoDbLocal();
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  afterAll(async () => {
    await dynamodb?.stop();
  });

  /** One process's scheduler on `table`, delivering into its own store client's inbox. */
  function processOn(table: string, options: { pollMs?: number; reminders?: SharedReminders } = {}) {
    const client = dynamodb.createClient();
    const store = new DynamoDbSourceStore({ client, tableName: table });
    const delivered: InboundMessage[] = [];
    const scheduler = new PolledReminderScheduler({
      reminders: options.reminders ?? new DynamoDbSharedReminders({ client, tableName: table }),
      deliver: async (message) => {
        delivered.push(message);
        return store.accept(message);
      },
      clock,
      logger: silentLogger,
      pollMs: options.pollMs ?? 150,
    });
    stops.push(() => scheduler.stop());
    return { scheduler, store, delivered };
  }

  const reminder = (overrides: Partial<Reminder> = {}): Reminder => ({
    id: 'stretch',
    source,
    dueAt: Date.now() + 400,
    text: 'stretch',
    createdAt: Date.now(),
    ...overrides,
  });

  const inboxTexts = async (store: DynamoDbSourceStore) =>
    (await store.inbox(source.id, 100)).map((stored) =>
      stored.item && 'text' in stored.item ? stored.item.text : stored.unreadable,
    );

  it("npm start: a reminder set through one process is another's to list, and outlives the first", async () => {
    // Before: `npm start` on DynamoDB kept reminders in its process's memory — another process
    // listed none, and a restart lost them all.
    const table = await dynamodb.createTable();
    const env = dynamodb.storeEnv(table);
    const store = () => new DynamoDbSourceStore({ client: dynamodb.createClient(), tableName: table });
    const first = await startKaiwaWithFakeLine({
      model: new ScriptedModel([
        callTools(['set_reminder', { text: 'stand up', delay_minutes: 30 }]),
        callReply('ok'),
      ]),
      store: store(),
      env,
    });
    try {
      await first.post(
        JSON.stringify(
          webhookBody([textEvent(first.line, { type: 'user', userId: source.id }, 'remind me') as never]),
        ),
      );
      await first.kaiwa.host.whenSettled();
    } finally {
      await first.close();
    }

    const listing = new ScriptedModel([callTools(['list_reminders', {}]), callReply('listed')]);
    const second = await startKaiwaWithFakeLine({ model: listing, store: store(), env });
    try {
      await second.post(
        JSON.stringify(
          webhookBody([
            textEvent(second.line, { type: 'user', userId: source.id }, 'my reminders?') as never,
          ]),
        ),
      );
      await second.kaiwa.host.whenSettled();
      const results = listing.calls[1]?.history.flatMap((entry) =>
        entry.role === 'tool' ? entry.results : [],
      );
      expect(results?.find((result) => result.name === 'list_reminders')?.response).toMatchObject({
        reminders: [{ text: 'stand up' }],
      });
    } finally {
      await second.close();
    }
  });

  it('fires once whichever processes run, and fires one set by a process that has stopped', async () => {
    const table = await dynamodb.createTable();
    const a = processOn(table);
    const b = processOn(table);
    await Promise.all([a.scheduler.start(), b.scheduler.start()]);

    await a.scheduler.schedule(reminder({ id: 'both', text: 'both running' }));
    await vi.waitFor(async () => expect(await inboxTexts(a.store)).toHaveLength(1), { timeout: 5_000 });
    // Both may offer it; the inbox takes it once, and the shared list lets it go once.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await inboxTexts(b.store)).toEqual([expect.stringContaining('both running')]);
    expect(await a.scheduler.list(source.id)).toEqual([]);

    await a.scheduler.schedule(reminder({ id: 'orphan', text: 'set by a', dueAt: Date.now() + 600 }));
    a.scheduler.stop();
    await vi.waitFor(async () => expect(await inboxTexts(b.store)).toHaveLength(2), { timeout: 5_000 });
    expect(b.delivered.map((message) => message.text)).toContainEqual(expect.stringContaining('set by a'));
    await vi.waitFor(async () => expect(await b.scheduler.list(source.id)).toEqual([]));
  });

  it('a burst due at once is offered to the inbox once per reminder, not once per process', async () => {
    // Both processes armed each one and both offered it: the inbox claim took it once, but every
    // reminder cost two offers (300 due at once: 588 offers).
    const table = await dynamodb.createTable();
    const shared = new DynamoDbSharedReminders({ client: dynamodb.client, tableName: table });
    const dueAt = Date.now() + 1_500;
    for (let index = 0; index < 40; index++)
      await shared.put(reminder({ id: `burst-${index}`, text: `burst ${index}`, dueAt }));
    const a = processOn(table);
    const b = processOn(table);
    await Promise.all([a.scheduler.start(), b.scheduler.start()]);

    await vi.waitFor(async () => expect(await inboxTexts(a.store)).toHaveLength(40), { timeout: 20_000 });
    await vi.waitFor(async () => expect(await shared.dueBy(dueAt + 1, 100)).toEqual([]));
    expect(a.delivered.length + b.delivered.length).toBe(40);
  });

  it('a reminder cancelled through another process does not fire, even when the first had it armed', async () => {
    const table = await dynamodb.createTable();
    const a = processOn(table);
    const b = processOn(table);
    await Promise.all([a.scheduler.start(), b.scheduler.start()]);

    await a.scheduler.schedule(reminder({ id: 'cancelled', dueAt: Date.now() + 500 }));
    expect((await b.scheduler.list(source.id)).map((item) => item.id)).toEqual(['cancelled']);
    expect(await b.scheduler.cancel(source.id, 'cancelled')).toBe(true);
    expect(await a.scheduler.cancel(source.id, 'cancelled')).toBe(false);

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect([...a.delivered, ...b.delivered]).toEqual([]);
    expect(await inboxTexts(a.store)).toEqual([]);
  });

  it('a repeating reminder moves on to its next occurrence once, whichever process delivered it', async () => {
    const table = await dynamodb.createTable();
    const a = processOn(table);
    const b = processOn(table);
    await Promise.all([a.scheduler.start(), b.scheduler.start()]);
    const daily = reminder({
      id: 'daily',
      recurrence: { repeat: 'daily', timeZone: 'UTC', hour: 0, minute: 0, weekday: 0 },
    });
    await b.scheduler.schedule(daily);

    await vi.waitFor(async () => expect(await inboxTexts(a.store)).toHaveLength(1), { timeout: 5_000 });
    await vi.waitFor(async () =>
      expect((await a.scheduler.list(source.id)).map((item) => item.dueAt)).not.toEqual([daily.dueAt]),
    );
    const [next] = await b.scheduler.list(source.id);
    const midnight = new Date(daily.dueAt);
    midnight.setUTCHours(24, 0, 0, 0);
    expect(next?.dueAt).toBe(midnight.getTime());
    // The due partition holds the one next occurrence, nothing of the delivered one.
    const shared = new DynamoDbSharedReminders({ client: dynamodb.client, tableName: table });
    expect((await shared.dueBy(midnight.getTime() + 1, 10)).map((item) => item.dueAt)).toEqual([
      midnight.getTime(),
    ]);
  });

  it('replacing a reminder keeps one: the due list forgets its former time', async () => {
    const table = await dynamodb.createTable();
    const shared = new DynamoDbSharedReminders({ client: dynamodb.client, tableName: table });
    await shared.put(reminder({ id: 'r', dueAt: 1_000_000 }));
    await shared.put(reminder({ id: 'r', dueAt: 2_000_000, text: 'later' }));
    expect(await shared.dueBy(3_000_000, 10)).toEqual([
      expect.objectContaining({ dueAt: 2_000_000, text: 'later' }),
    ]);
    expect(await shared.ofSource(source.id)).toHaveLength(1);
    const claim = { by: 'a', at: 0, until: 30_000 };
    expect(await shared.claim(reminder({ id: 'r', dueAt: 1_000_000 }), claim)).toBe(false);
    expect(await shared.claim(reminder({ id: 'r', dueAt: 2_000_000 }), claim)).toBe(true);
    // Held by a: b may take it only once a's claim ran out.
    expect(
      await shared.claim(reminder({ id: 'r', dueAt: 2_000_000 }), { ...claim, by: 'b', at: 29_999 }),
    ).toBe(false);
    expect(
      await shared.claim(reminder({ id: 'r', dueAt: 2_000_000 }), { by: 'b', at: 30_000, until: 60_000 }),
    ).toBe(true);
    expect(await shared.remove(source.id, 'r')).toBe(true);
    expect(await shared.dueBy(3_000_000, 10)).toEqual([]);
  });

  it('a read that fails is logged and the next poll fires the reminder', async () => {
    const table = await dynamodb.createTable();
    const { lines, logger } = recordingLogger();
    const real = new DynamoDbSharedReminders({ client: dynamodb.client, tableName: table });
    let failures = 2;
    const flaky: SharedReminders = {
      put: (r) => real.put(r),
      remove: (sourceId, id) => real.remove(sourceId, id),
      ofSource: (sourceId) => real.ofSource(sourceId),
      claim: (r, claim) => real.claim(r, claim),
      delivered: (r, next) => real.delivered(r, next),
      dueBy: (until, limit) =>
        failures-- > 0 ? Promise.reject(new Error('connect ECONNREFUSED')) : real.dueBy(until, limit),
    };
    await real.put(reminder({ id: 'late', dueAt: Date.now() - 60_000, text: 'fell due while down' }));
    const delivered: InboundMessage[] = [];
    const scheduler = new PolledReminderScheduler({
      reminders: flaky,
      deliver: (message) => Promise.resolve(delivered.push(message)),
      clock,
      logger,
      pollMs: 100,
    });
    stops.push(() => scheduler.stop());
    await scheduler.start();
    await vi.waitFor(() => expect(delivered).toHaveLength(1), { timeout: 5_000 });
    expect(lines.filter((line) => line.message.startsWith('reminders could not be read'))).toHaveLength(2);
    await vi.waitFor(async () => expect(await real.ofSource(source.id)).toEqual([]));
  });
});
