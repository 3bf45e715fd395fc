import { randomUUID } from 'node:crypto';
import type { ObjectSchema } from '../domain/index.js';
import { defineTool } from '../tools/index.js';
import type { ReminderScheduler } from './reminder-scheduler.js';

export interface ReminderToolsOptions {
  readonly scheduler: ReminderScheduler;
  /** Reminders further ahead than this are refused (default one year). */
  readonly maxAheadMs?: number;
  /** Per source (default 50). */
  readonly maxPerSource?: number;
  /** A new reminder's id (default: a random UUID; tests force collisions with it). */
  readonly newId?: () => string;
}

const reminderShape = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    due: { type: 'string', description: 'ISO 8601, UTC' },
    text: { type: 'string' },
  },
  required: ['id', 'due', 'text'],
  additionalProperties: false,
} as const satisfies ObjectSchema;

/**
 * `set_reminder`, `list_reminders` and `cancel_reminder`. They act on the conversation they are
 * called in — the source comes from the tool context, never from the arguments — so a reminder
 * of another chat can be neither listed nor cancelled.
 */
export function createReminderTools(options: ReminderToolsOptions) {
  const { scheduler } = options;
  const maxAheadMs = options.maxAheadMs ?? 365 * 24 * 3600_000;
  const maxPerSource = options.maxPerSource ?? 50;
  const newId = options.newId ?? randomUUID;

  const setReminder = defineTool({
    name: 'set_reminder',
    description:
      'Remind this chat later: at the time, you get the reminder back and write the message, which is then pushed.',
    category: 'reminders',
    optional: true,
    usageHint:
      'When the user asks to be reminded of something. Give either an absolute time (with get_current_time for "tomorrow at 9") or a delay in minutes.',
    // Exactly one of `when` and `delay_minutes`, a date-time with its offset: often got wrong.
    complex: true,
    keywords: [
      ...['remind', 'alarm', 'timer', "don't forget", 'dont forget', 'wake me', 'notify me'],
      ...[
        'リマインド',
        'リマインダー',
        'アラーム',
        'タイマー',
        '思い出させ',
        '忘れないよう',
        '忘れずに',
        '知らせて',
        '通知',
        '分後',
        '時間後',
      ],
    ],
    intents: [/\bin (?:an? |\d+ ?)(?:min(?:ute)?s?|hours?|h)\b/],
    examples: [
      { description: 'In 30 minutes', args: { text: 'Take the laundry out', delay_minutes: 30 } },
      { description: 'At a given time', args: { text: 'Call mom', when: '2026-11-23T09:00:00+09:00' } },
    ],
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 500, description: 'What to remind of' },
        when: { type: 'string', format: 'date-time', description: 'ISO 8601 date-time with its offset' },
        delay_minutes: { type: 'integer', minimum: 1, maximum: 525600, description: 'Minutes from now' },
      },
      required: ['text'],
      additionalProperties: false,
    },
    response: reminderShape,
  }).implement(async (args, context) => {
    const now = context.clock.now();
    const dueAt = dueAtOf(args, now);
    if (dueAt === undefined)
      return { forLLM: { error: 'give exactly one of when or delay_minutes' }, isError: true };
    if (dueAt <= now) return { forLLM: { error: 'that time has already passed' }, isError: true };
    if (dueAt - now > maxAheadMs) return { forLLM: { error: 'that is too far ahead' }, isError: true };
    if ((await scheduler.list(context.source.id)).length >= maxPerSource) {
      return {
        forLLM: { error: `this chat already has ${maxPerSource} reminders; cancel one first` },
        isError: true,
      };
    }
    const reminder = {
      id: newId(),
      source: context.source,
      dueAt,
      text: args.text,
      createdAt: now,
      ...(context.sender && { requestedBy: context.sender.userId }),
    };
    await scheduler.schedule(reminder);
    // An async tool: it returns now; the reminder comes back later through the inbox.
    return {
      forLLM: { id: reminder.id, due: new Date(dueAt).toISOString(), text: reminder.text },
      async: true,
    };
  });

  const listReminders = defineTool({
    name: 'list_reminders',
    description: "List this chat's waiting reminders.",
    category: 'reminders',
    optional: true,
    sideEffects: false,
    usageHint: 'When the user asks what reminders are set, or before cancelling one.',
    keywords: ['reminders', 'reminder list', 'list reminder', 'リマインダー', 'リマインド一覧', '予定'],
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    response: {
      type: 'object',
      properties: { reminders: { type: 'array', items: reminderShape } },
      required: ['reminders'],
      additionalProperties: false,
    },
  }).implement(async (_args, context) => {
    const reminders = await scheduler.list(context.source.id);
    return {
      forLLM: {
        reminders: reminders.map((reminder) => ({
          id: reminder.id,
          due: new Date(reminder.dueAt).toISOString(),
          text: reminder.text,
        })),
      },
    };
  });

  const cancelReminder = defineTool({
    name: 'cancel_reminder',
    description: "Cancel one of this chat's reminders by its id (see list_reminders).",
    category: 'reminders',
    optional: true,
    usageHint: 'When the user no longer wants a reminder.',
    keywords: [
      ...['cancel', 'delete', 'remove', 'stop remind', 'never mind'],
      ...['キャンセル', '取り消', '取消', '削除', '消して', 'やめて', '中止'],
    ],
    parameters: {
      type: 'object',
      properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
      required: ['id'],
      additionalProperties: false,
    },
    response: {
      type: 'object',
      properties: { cancelled: { type: 'boolean' } },
      required: ['cancelled'],
      additionalProperties: false,
    },
  }).implement(async (args, context) => {
    const cancelled = await scheduler.cancel(context.source.id, args.id);
    return cancelled
      ? { forLLM: { cancelled: true } }
      : { forLLM: { error: `no reminder ${args.id} in this chat` }, isError: true };
  });

  return [setReminder, listReminders, cancelReminder] as const;
}

/** When the reminder is due: from exactly one of `when` and `delay_minutes`, else undefined. */
function dueAtOf(args: { when?: string; delay_minutes?: number }, now: number): number | undefined {
  if (args.when !== undefined && args.delay_minutes === undefined) return Date.parse(args.when);
  if (args.delay_minutes !== undefined && args.when === undefined) return now + args.delay_minutes * 60_000;
  return undefined;
}
