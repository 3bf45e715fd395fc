import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Socket } from 'node:net';
import {
  AwsReminderScheduler,
  createReminderHandler,
  schedulerClientWithTimeouts,
  type ReminderEvent,
} from '../../src/aws/index.js';
import { reminderScheduleName } from '../../src/aws/schedule-names.js';
import { silentLogger } from '../../src/logging/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import { createReminderTools, type Reminder } from '../../src/reminders/index.js';
import type { ToolContext } from '../../src/tools/index.js';
import { startFakeScheduler } from './support/fake-scheduler-server.js';

const GROUP = 'kaiwa-test-reminders';
const TARGET = 'arn:aws:lambda:us-east-1:123456789012:function:kaiwa-test-reminder';
const ROLE = 'arn:aws:iam::123456789012:role/kaiwa-test-scheduler';
const DEAD_LETTERS = 'arn:aws:sqs:us-east-1:123456789012:kaiwa-test-dead-letters';
const alice = { kind: 'user' as const, id: 'U1111111111111111111111111111111a' };
const bob = { kind: 'user' as const, id: 'U2222222222222222222222222222222b' };

let scheduler: Awaited<ReturnType<typeof startFakeScheduler>>;

/** A source's waiting messages, oldest first. */
async function waiting(store: MemorySourceStore, sourceId: string) {
  return (await store.inbox(sourceId)).map(({ item }) => item);
}

function reminders() {
  return new AwsReminderScheduler({
    client: new SchedulerClient({
      endpoint: scheduler.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    }),
    groupName: GROUP,
    targetArn: TARGET,
    roleArn: ROLE,
    deadLetterArn: DEAD_LETTERS,
  });
}

function reminder(id: string, source = alice, dueInMs = 3600_000): Reminder {
  return {
    id,
    source,
    dueAt: Date.now() + dueInMs,
    text: `do ${id}`,
    createdAt: Date.now(),
    requestedBy: source.id,
  };
}

describe('reminder schedule names', () => {
  const UUID = '0b7e6f8a-2c1d-4e5f-9a0b-1c2d3e4f5a6b';
  // EventBridge Scheduler: 1–64 characters of [0-9a-zA-Z-_.].
  const NAME = /^[0-9a-zA-Z_.-]{1,64}$/;

  it.each([
    ['a LINE user and a UUID', alice.id, UUID],
    ['a LINE group and a UUID', 'C' + 'f'.repeat(32), UUID],
    ['a source id that is hashed', 'not/a.line-id'.repeat(10), UUID],
    ['the longest readable source id', 'U'.repeat(40), 'ffffffff-ffff-4fff-bfff-ffffffffffff'],
    ['the longest readable source id and an id of the first format', 'U'.repeat(40), 'x'.repeat(23)],
  ])('fit the limit and the charset: %s', (_case, sourceId, reminderId) => {
    const name = reminderScheduleName(sourceId, reminderId);
    expect(name).toMatch(NAME);
  });

  it('keep the source readable and the UUID whole (22 characters of base64url), one name per reminder', () => {
    expect(reminderScheduleName(alice.id, UUID)).toBe(`${alice.id}.C35viiwdTl-aCxwtPk9aaw`);
    expect(reminderScheduleName(bob.id, UUID)).not.toBe(reminderScheduleName(alice.id, UUID));
    expect(reminderScheduleName(alice.id, UUID.toUpperCase())).toBe(reminderScheduleName(alice.id, UUID));
  });

  it('keep the names of the first format (8 hex characters), and refuse anything else', () => {
    expect(reminderScheduleName(alice.id, '3f2a9c1b')).toBe(`${alice.id}.3f2a9c1b`);
    for (const bad of ['../theirs', 'a.b', '', 'x'.repeat(24), `${UUID}.x`])
      expect(reminderScheduleName(alice.id, bad), bad).toBeUndefined();
  });
});

describe('reminders on EventBridge Scheduler (the real client against a local Scheduler API)', () => {
  beforeAll(async () => {
    scheduler = await startFakeScheduler({ groups: [GROUP], pageSize: 2 });
  });
  afterEach(() => scheduler.reset());
  afterAll(() => scheduler.close());

  it('a reminder is a one-time schedule that deletes itself and targets the reminder function', async () => {
    const due = Date.UTC(2031, 0, 2, 3, 4, 5, 600);
    await reminders().schedule({ ...reminder('r1'), dueAt: due });
    const [schedule, ...others] = scheduler.schedules(GROUP);
    expect(others).toEqual([]);
    expect(schedule).toMatchObject({
      Name: `${alice.id}.r1`,
      GroupName: GROUP,
      ScheduleExpression: 'at(2031-01-02T03:04:06)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: TARGET, RoleArn: ROLE, DeadLetterConfig: { Arn: DEAD_LETTERS } },
    });
    expect(JSON.parse(schedule!.Target.Input!)).toMatchObject({
      kaiwa: 'reminder',
      reminder: { id: 'r1', dueAt: due },
    });
  });

  it('scheduling the same reminder again (its call ran again) keeps the one schedule', async () => {
    // Scheduler answers 409 for a name it has: the name comes from the source and the reminder's
    // id, and the id from the call, so that schedule is this reminder.
    await reminders().schedule(reminder('r1'));
    await reminders().schedule(reminder('r1'));
    expect(scheduler.schedules(GROUP).map((schedule) => schedule.Name)).toEqual([`${alice.id}.r1`]);
  });

  it("lists only the source's own reminders, soonest first, across pages", async () => {
    const scheduled = reminders();
    await scheduled.schedule(reminder('late', alice, 3 * 3600_000));
    await scheduled.schedule(reminder('soon', alice, 60_000));
    await scheduled.schedule(reminder('middle', alice, 2 * 3600_000));
    await scheduled.schedule(reminder('bobs', bob));

    expect((await scheduled.list(alice.id)).map((item) => item.id)).toEqual(['soon', 'middle', 'late']);
    expect((await scheduled.list(bob.id)).map((item) => item.id)).toEqual(['bobs']);
    expect(
      scheduler.requests.filter((request) => request.path === '/schedules' && request.query.NextToken),
    ).not.toHaveLength(0);
  });

  it("cancels by the source's name prefix: another chat's reminder cannot be cancelled", async () => {
    const scheduled = reminders();
    await scheduled.schedule(reminder('mine', alice));
    await scheduled.schedule(reminder('theirs', bob));

    expect(await scheduled.cancel(alice.id, 'theirs')).toBe(false);
    expect(await scheduled.cancel(alice.id, '../theirs')).toBe(false);
    expect(await scheduled.cancel(alice.id, 'mine')).toBe(true);
    expect(await scheduled.cancel(alice.id, 'mine')).toBe(false);
    expect(scheduler.schedules(GROUP).map((schedule) => schedule.Name)).toEqual([`${bob.id}.theirs`]);
  });

  it('the reminder tools work on it: set, list, cancel', async () => {
    const [setReminder, listReminders, cancelReminder] = createReminderTools({
      scheduler: reminders(),
      newId: () => 'tool1',
    });
    const context: ToolContext = {
      source: alice,
      sender: { userId: alice.id },
      turnId: 't1',
      callId: 'c1',
      idempotencyKey: 't1:c1',
      signal: new AbortController().signal,
      clock: { now: () => Date.now() },
      logger: silentLogger,
    };
    const set = await setReminder.execute({ text: 'stretch', delay_minutes: 30 }, context);
    expect(set).toMatchObject({ async: true, forLLM: { id: 'tool1', text: 'stretch' } });
    expect(await listReminders.execute({}, context)).toMatchObject({
      forLLM: { reminders: [{ id: 'tool1' }] },
    });
    expect(await cancelReminder.execute({ id: 'tool1' }, context)).toMatchObject({
      forLLM: { cancelled: true },
    });
  });

  it('two chats given the same UUID both keep their reminder: two schedules, both in their inbox when due', async () => {
    const collidingId = '0b7e6f8a-2c1d-4e5f-9a0b-1c2d3e4f5a6b';
    const scheduled = reminders();
    const [setForAlice] = createReminderTools({ scheduler: scheduled, newId: () => collidingId });
    const context = (source: typeof alice): ToolContext => ({
      source,
      sender: { userId: source.id },
      turnId: 't1',
      callId: 'c1',
      idempotencyKey: 't1:c1',
      signal: new AbortController().signal,
      clock: { now: () => Date.now() },
      logger: silentLogger,
    });
    await setForAlice.execute({ text: 'water the plants', delay_minutes: 30 }, context(alice));
    await setForAlice.execute({ text: 'book the hall', delay_minutes: 60 }, context(bob));
    expect((await scheduled.list(alice.id)).map((item) => item.text)).toEqual(['water the plants']);
    expect((await scheduled.list(bob.id)).map((item) => item.text)).toEqual(['book the hall']);

    const store = new MemorySourceStore();
    const handler = createReminderHandler(() =>
      Promise.resolve({ store, clock: { now: () => Date.now() }, logger: silentLogger }),
    );
    for (const schedule of scheduler.schedules(GROUP)) {
      await expect(handler(scheduler.fire(schedule))).resolves.toEqual({ accepted: true });
    }
    expect(await waiting(store, alice.id)).toMatchObject([{ text: '[reminder due] water the plants' }]);
    expect(await waiting(store, bob.id)).toMatchObject([{ text: '[reminder due] book the hall' }]);
  });

  it("when it fires, the reminder function puts the reminder's message in the inbox, once", async () => {
    await reminders().schedule(reminder('r2'));
    const [schedule] = scheduler.schedules(GROUP);
    const event = scheduler.fire(schedule!) as ReminderEvent;
    expect(scheduler.schedules(GROUP)).toEqual([]); // ActionAfterCompletion: DELETE

    const store = new MemorySourceStore();
    const handler = createReminderHandler(() =>
      Promise.resolve({ store, clock: { now: () => Date.now() }, logger: silentLogger }),
    );
    await expect(handler(event)).resolves.toEqual({ accepted: true });
    await expect(handler(event)).resolves.toEqual({ accepted: false }); // a retried invocation
    expect(await waiting(store, alice.id)).toMatchObject([
      {
        eventId: `reminder:${alice.id}:r2`,
        text: '[reminder due] do r2',
        lineEvent: 'reminder',
        sender: { userId: alice.id },
      },
    ]);
    await expect(handler({ kaiwa: 'something else' })).resolves.toEqual({ accepted: false });
    // Not even an object (a test invocation from the console): ignored and logged, not a retry.
    await expect(handler(null)).resolves.toEqual({ accepted: false });
    await expect(handler('{}')).resolves.toEqual({ accepted: false });
  });
});

describe('a repeating reminder on EventBridge Scheduler', () => {
  beforeAll(async () => {
    scheduler = await startFakeScheduler({ groups: [GROUP], pageSize: 2 });
  });
  afterAll(() => scheduler.close());

  it('is one cron schedule in its zone that stays, each occurrence its own inbox item', async () => {
    // Every weekday at 07:30 in Tokyo; its first is the coming Monday's (2031-01-06).
    const first = Date.parse('2031-01-06T07:30:00+09:00');
    const recurrence = {
      repeat: 'weekdays',
      timeZone: 'Asia/Tokyo',
      hour: 7,
      minute: 30,
      weekday: 1,
    } as const;
    await reminders().schedule({ ...reminder('daily1'), dueAt: first, recurrence });

    const [schedule] = scheduler.schedules(GROUP);
    expect(schedule).toMatchObject({
      Name: `${alice.id}.daily1`,
      ScheduleExpression: 'cron(30 7 ? * MON-FRI *)',
      ScheduleExpressionTimezone: 'Asia/Tokyo',
      ActionAfterCompletion: 'NONE',
    });
    const store = new MemorySourceStore();
    const handler = createReminderHandler(() =>
      Promise.resolve({ store, clock: { now: () => Date.now() }, logger: silentLogger }),
    );
    const tuesday = Date.parse('2031-01-07T07:30:00+09:00');
    await expect(handler(scheduler.fire(schedule!, first))).resolves.toEqual({ accepted: true });
    await expect(handler(scheduler.fire(schedule!, tuesday))).resolves.toEqual({ accepted: true });
    // A retried invocation of Tuesday's is claimed once.
    await expect(handler(scheduler.fire(schedule!, tuesday))).resolves.toEqual({ accepted: false });

    expect(
      (await waiting(store, alice.id)).map((item) => item && 'dueAt' in item && [item.eventId, item.dueAt]),
    ).toEqual([
      [`reminder:${alice.id}:daily1:${first}`, first],
      [`reminder:${alice.id}:daily1:${tuesday}`, tuesday],
    ]);
    expect(scheduler.schedules(GROUP)).toHaveLength(1);
    // Listed at its next occurrence; cancelled, the series ends.
    expect((await reminders().list(alice.id)).map((item) => item.dueAt)).toEqual([first]);
    expect(await reminders().cancel(alice.id, 'daily1')).toBe(true);
    expect(scheduler.schedules(GROUP)).toEqual([]);
  });
});

describe('a stalled EventBridge Scheduler', () => {
  it('fails the call within its timeouts instead of holding the turn', async () => {
    // Takes every connection and never answers: a network that went quiet.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const stalled = new AwsReminderScheduler({
      client: schedulerClientWithTimeouts({
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      }),
      groupName: GROUP,
      targetArn: TARGET,
      roleArn: ROLE,
    });
    try {
      await expect(stalled.schedule(reminder('stalled'))).rejects.toMatchObject({ name: 'TimeoutError' });
      await expect(stalled.list(alice.id)).rejects.toMatchObject({ name: 'TimeoutError' });
      // Two attempts each: the SDK gave up on every connection it opened.
      expect(sockets.length).toBe(4);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
