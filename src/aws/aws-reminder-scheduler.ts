import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  paginateListSchedules,
  SchedulerClient,
  type SchedulerClientConfig,
} from '@aws-sdk/client-scheduler';
import type { Reminder, ReminderScheduler } from '../reminders/index.js';
import { nextOccurrence } from '../reminders/recurrence.js';
import { oneTimeSchedule, recurringSchedule } from './one-time-schedule.js';
import { reminderScheduleName, scheduleNamePart } from './schedule-names.js';

export interface AwsReminderSchedulerOptions {
  readonly client: SchedulerClient;
  /** The schedule group holding every reminder (serverless.yml creates it). */
  readonly groupName: string;
  /** The reminder function: it writes the due reminder to the source's inbox. */
  readonly targetArn: string;
  /** The role EventBridge Scheduler assumes to invoke the reminder function. */
  readonly roleArn: string;
  /** Where a reminder goes when the function cannot be invoked at all. */
  readonly deadLetterArn?: string | undefined;
}

/**
 * An EventBridge Scheduler client that gives up on a stalled call by itself: the SDK's default
 * waits as long as the socket does, and these calls run inside a tool's timeout (3 s by default)
 * or an unfollow's forget. Two attempts of at most 500 ms to connect and 1 s to answer.
 * `throwOnRequestTimeout`: without it the SDK's request timeout only logs a warning and waits on.
 */
export function schedulerClientWithTimeouts(config: SchedulerClientConfig = {}): SchedulerClient {
  return new SchedulerClient({
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 500, requestTimeout: 1000, throwOnRequestTimeout: true },
    ...config,
  });
}

/** What a reminder's schedule hands the reminder function. */
export interface ReminderEvent {
  readonly kaiwa: 'reminder';
  readonly reminder: Reminder;
  /**
   * A repeating reminder's occurrence: EventBridge Scheduler writes its time in place of
   * `<aws.scheduler.scheduled-time>` (`2026-11-29T23:00:00Z`) at each invocation.
   */
  readonly scheduledTime?: string;
}

/** The context attribute EventBridge Scheduler replaces with the invocation's scheduled time. */
export const SCHEDULED_TIME = '<aws.scheduler.scheduled-time>';

/**
 * Reminders on AWS: one EventBridge Scheduler one-time schedule per reminder, named
 * `<source>.<reminder id>` in one group (see `reminderScheduleName`: within 64 characters, so a
 * reminder is known by its source and id together), deleted by the scheduler once it has fired. Its
 * target is the reminder function, which puts the reminder's message in the source's inbox
 * (it never runs a turn). Listing and cancelling go by the source's name prefix, so a chat
 * can neither see nor cancel another chat's reminders.
 */
export class AwsReminderScheduler implements ReminderScheduler {
  constructor(private readonly options: AwsReminderSchedulerOptions) {}

  async schedule(reminder: Reminder): Promise<void> {
    const name = reminderScheduleName(reminder.source.id, reminder.id);
    if (!name) throw new Error(`invalid reminder id "${reminder.id}"`);
    // The message's event id comes from the reminder (and its occurrence), so a repeated
    // invocation is claimed once.
    const retry = { maximumAttempts: 20, maximumEventAgeSeconds: 86_400 };
    try {
      await this.options.client.send(
        new CreateScheduleCommand(
          reminder.recurrence
            ? recurringSchedule({
                name,
                recurrence: reminder.recurrence,
                // From a minute before the first occurrence (it is at a whole minute), never in the past.
                startAt: Math.max(reminder.createdAt, reminder.dueAt - 60_000),
                event: { kaiwa: 'reminder', reminder, scheduledTime: SCHEDULED_TIME } satisfies ReminderEvent,
                target: this.options,
                retry,
              })
            : oneTimeSchedule({
                name,
                at: reminder.dueAt,
                event: { kaiwa: 'reminder', reminder } satisfies ReminderEvent,
                target: this.options,
                retry,
              }),
        ),
      );
    } catch (error) {
      // The name comes from the source and the reminder's id, the id from its tool call: a
      // schedule of that name is this reminder, scheduled when the call ran before.
      if (!(error instanceof ConflictException)) throw error;
    }
  }

  async cancel(sourceId: string, reminderId: string): Promise<boolean> {
    // An id that smuggles in a `.` or another source's prefix names no schedule.
    const name = reminderScheduleName(sourceId, reminderId);
    if (!name) return false;
    try {
      await this.options.client.send(
        new DeleteScheduleCommand({
          Name: name,
          GroupName: this.options.groupName,
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return false;
      throw error;
    }
  }

  async list(sourceId: string): Promise<Reminder[]> {
    const names: string[] = [];
    const pages = paginateListSchedules(
      { client: this.options.client },
      { GroupName: this.options.groupName, NamePrefix: `${scheduleNamePart(sourceId)}.` },
    );
    for await (const page of pages) {
      for (const summary of page.Schedules ?? []) if (summary.Name) names.push(summary.Name);
    }
    const reminders = await Promise.all(names.map((name) => this.reminderOf(name)));
    return reminders
      .filter((reminder): reminder is Reminder => reminder?.source.id === sourceId)
      .sort((a, b) => a.dueAt - b.dueAt);
  }

  private async reminderOf(name: string): Promise<Reminder | undefined> {
    try {
      const schedule = await this.options.client.send(
        new GetScheduleCommand({ Name: name, GroupName: this.options.groupName }),
      );
      const event = JSON.parse(schedule.Target?.Input ?? '{}') as Partial<ReminderEvent>;
      if (event.kaiwa !== 'reminder' || !event.reminder) return undefined;
      // A repeating reminder's schedule keeps its first occurrence: the next one is from now.
      const { recurrence } = event.reminder;
      return recurrence
        ? {
            ...event.reminder,
            dueAt: nextOccurrence(recurrence, Math.max(Date.now(), event.reminder.dueAt - 1)),
          }
        : event.reminder;
    } catch (error) {
      // Fired and deleted between the listing and now.
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }
}
