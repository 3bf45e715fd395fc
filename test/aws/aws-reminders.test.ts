import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AwsReminderScheduler, createReminderHandler, type ReminderEvent } from '../../src/aws/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { MemoryStore } from '../../src/persistence/index.js';
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

  it("when it fires, the reminder function puts the reminder's message in the inbox, once", async () => {
    await reminders().schedule(reminder('r2'));
    const [schedule] = scheduler.schedules(GROUP);
    const event = scheduler.fire(schedule!) as ReminderEvent;
    expect(scheduler.schedules(GROUP)).toEqual([]); // ActionAfterCompletion: DELETE

    const store = new MemoryStore();
    const handler = createReminderHandler(() =>
      Promise.resolve({ store, clock: { now: () => Date.now() }, logger: silentLogger }),
    );
    await expect(handler(event)).resolves.toEqual({ accepted: true });
    await expect(handler(event)).resolves.toEqual({ accepted: false }); // a retried invocation
    expect(await store.inbox(alice.id)).toMatchObject([
      {
        eventId: 'reminder:r2',
        text: '[reminder due] do r2',
        lineEvent: 'reminder',
        sender: { userId: alice.id },
      },
    ]);
    await expect(handler({ kaiwa: 'something else' })).resolves.toEqual({ accepted: false });
  });
});
