import type { SqliteReminderList, SqliteReminderListOptions } from './sqlite-reminder-list.js';

/**
 * Opens the local reminders' SQLite file, loading `node:sqlite` only now: a Lambda bundle, which
 * keeps reminders in EventBridge Scheduler, never loads it.
 */
export async function openSqliteReminderList(
  options: SqliteReminderListOptions,
): Promise<SqliteReminderList> {
  const { SqliteReminderList } = await import('./sqlite-reminder-list.js');
  return SqliteReminderList.open(options);
}
