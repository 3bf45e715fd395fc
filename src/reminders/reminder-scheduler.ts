import type { Reminder } from './reminder.js';

/**
 * Where reminders wait until they are due. Locally: timers over a durable list; on AWS:
 * EventBridge Scheduler one-time schedules. Either way a due reminder enters the inbox.
 */
export interface ReminderScheduler {
  schedule(reminder: Reminder): Promise<void>;
  /** False when no such reminder waits for this source (a reminder of another source is not found). */
  cancel(sourceId: string, reminderId: string): Promise<boolean>;
  /** The source's waiting reminders, soonest first. */
  list(sourceId: string): Promise<Reminder[]>;
}
