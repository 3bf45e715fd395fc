export type { Reminder } from './reminder.js';
export { reminderMessage } from './reminder.js';
export type { ReminderScheduler } from './reminder-scheduler.js';
export { LocalReminderScheduler } from './local-reminder-scheduler.js';
export type { LocalReminderSchedulerOptions } from './local-reminder-scheduler.js';
export { createReminderTools } from './reminder-tools.js';
export type { ReminderToolsOptions } from './reminder-tools.js';
