import { REMINDER_DUE_MARK, type InboundMessage, type Source } from '../domain/index.js';
import { isRecurrence, type Recurrence } from './recurrence.js';

/** A reminder a user asked for; it comes back through the source's inbox when due. */
export interface Reminder {
  /** A random UUID, unique within its source (reminders of the first format kept 8 hex characters). */
  readonly id: string;
  readonly source: Source;
  /** When it is due next: a repeating reminder moves on to its next occurrence each time. */
  readonly dueAt: number;
  readonly text: string;
  /** How it repeats; none: it comes once. */
  readonly recurrence?: Recurrence;
  /** The user who asked, so the model knows whom to remind in a group. */
  readonly requestedBy?: string;
  readonly createdAt: number;
}

/**
 * The inbox message a due reminder becomes: it starts a turn like a user message, ordered with
 * them, and has no reply token, so the answer goes out by push. Its event id comes from the
 * reminder and its source — and, for a repeating one, the occurrence — so a reminder fired twice
 * (a retried schedule, a restart) is claimed once, and another chat's reminder with the same id
 * is never taken for a duplicate.
 */
export function reminderMessage(reminder: Reminder, firedAt: number): InboundMessage {
  const occurrence = reminder.recurrence ? `:${reminder.dueAt}` : '';
  return {
    eventId: `reminder:${reminder.source.id}:${reminder.id}${occurrence}`,
    source: reminder.source,
    text: `${REMINDER_DUE_MARK}${reminder.text}`,
    timestamp: firedAt,
    lineEvent: 'reminder',
    dueAt: reminder.dueAt,
    ...(reminder.requestedBy && { sender: { userId: reminder.requestedBy } }),
  };
}

/** A value read back from disk that has what a reminder needs. */
export function isReminder(value: unknown): value is Reminder {
  const reminder = value as Partial<Reminder> | null;
  return (
    typeof reminder?.id === 'string' &&
    typeof reminder.source?.id === 'string' &&
    typeof reminder.dueAt === 'number' &&
    typeof reminder.text === 'string' &&
    (reminder.recurrence === undefined || isRecurrence(reminder.recurrence))
  );
}
