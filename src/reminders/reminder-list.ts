import type { Reminder } from './reminder.js';

/**
 * Where the local scheduler keeps its waiting reminders so they survive a restart. A change is
 * written as that change: one reminder put or removed, never the whole list.
 */
export interface ReminderList {
  /** Every waiting reminder, read once at start. */
  all(): Promise<readonly Reminder[]>;
  /** Adds the reminder, or replaces the one of its source with its id. */
  put(reminder: Reminder): Promise<void>;
  remove(sourceId: string, reminderId: string): Promise<void>;
}

/** Keeps nothing: reminders live as long as the process (the memory store's runtime, tests). */
export const unkeptReminders: ReminderList = {
  all: () => Promise.resolve([]),
  put: () => Promise.resolve(),
  remove: () => Promise.resolve(),
};
