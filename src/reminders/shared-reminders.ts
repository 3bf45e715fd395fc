import type { Reminder } from './reminder.js';

/**
 * Reminders kept where every process of one deployment reads and changes them (`npm start` on
 * DynamoDB, several processes on one table): a reminder set through one process is listed,
 * cancelled and fired by any other, and outlives the process that set it.
 */
export interface SharedReminders {
  /** Adds the reminder, or replaces the one of its source with its id. */
  put(reminder: Reminder): Promise<void>;
  /** False when the source has no such reminder. */
  remove(sourceId: string, reminderId: string): Promise<boolean>;
  /** The source's waiting reminders, soonest first. */
  ofSource(sourceId: string): Promise<Reminder[]>;
  /** Waiting reminders due at or before `until`, soonest first, at most `limit`. */
  dueBy(until: number, limit: number): Promise<Reminder[]>;
  /**
   * Takes this occurrence for delivery until `claim.until`, so that one process offers it to the
   * inbox: false when it was cancelled, replaced or moved on, or another process holds it.
   */
  claim(reminder: Reminder, claim: ReminderClaim): Promise<boolean>;
  /**
   * Its occurrence is in the inbox: a one-time reminder goes, a repeating one moves on to
   * `nextDueAt`. Nothing changes when another process did so first, or it was cancelled meanwhile.
   */
  delivered(reminder: Reminder, nextDueAt?: number): Promise<void>;
}

/** Who takes a reminder's occurrence for delivery, when, and until when (epoch ms). */
export interface ReminderClaim {
  readonly by: string;
  readonly at: number;
  readonly until: number;
}
