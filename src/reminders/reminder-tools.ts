import { createHash } from 'node:crypto';
import { isValidTimeZone, type ObjectSchema } from '../domain/index.js';
import { OneAtATime } from '../timing/index.js';
import { defineTool } from '../tools/index.js';
import { nextOccurrence, recurrenceOf, REPEATS } from './recurrence.js';
import type { Reminder } from './reminder.js';
import type { ReminderScheduler } from './reminder-scheduler.js';

export interface ReminderToolsOptions {
  readonly scheduler: ReminderScheduler;
  /** Reminders further ahead than this are refused (default one year). */
  readonly maxAheadMs?: number;
  /** Per source (default 50). */
  readonly maxPerSource?: number;
  /**
   * A new reminder's id from its call's idempotency key (default: a UUID derived from it, so a
   * call run again — a turn resumed after its process died — finds its reminder instead of
   * scheduling a second one). Tests force collisions with it.
   */
  readonly newId?: (idempotencyKey: string) => string;
  /** The zone a repeating reminder keeps its time in when the call names none (`KAIWA_TIME_ZONE`). */
  readonly defaultTimeZone?: string;
}

/** A name-based (version 5) UUID of the key, in kaiwa's own namespace. */
export function reminderIdOf(idempotencyKey: string): string {
  const bytes = createHash('sha1').update(REMINDER_ID_NAMESPACE).update(idempotencyKey).digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const REMINDER_ID_NAMESPACE = Buffer.from('6f1c2a7e9b3d4c58a0e1f2d3c4b5a697', 'hex');

const reminderShape = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    due: { type: 'string', description: 'ISO 8601, UTC: the next time it comes' },
    text: { type: 'string' },
    repeat: { type: 'string', enum: REPEATS, description: 'How it repeats; absent: it comes once' },
    time_zone: { type: 'string', description: 'The zone whose clock a repeating reminder keeps' },
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
  const newId = options.newId ?? reminderIdOf;
  const defaultTimeZone = options.defaultTimeZone ?? 'UTC';
  // A chat's calls check its count and schedule one at a time: calls of one step run side by
  // side, and each would see room for itself.
  const perSource = new OneAtATime();

  const setReminder = defineTool({
    name: 'set_reminder',
    description:
      'Remind this chat later: at the time, you get the reminder back and write the message, which is then pushed.',
    category: 'reminders',
    optional: true,
    usageHint:
      'When the user asks to be reminded of something. Give either an absolute time (with get_current_time for "tomorrow at 9") or a delay in minutes; for "every day", "every weekday" or "every week", also repeat.',
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
    intents: [
      /\bin (?:an? |\d+ ?)(?:min(?:ute)?s?|hours?|h)\b/,
      /\bevery (?:day|morning|evening|night|week|weekday)/,
    ],
    examples: [
      { description: 'In 30 minutes', args: { text: 'Take the laundry out', delay_minutes: 30 } },
      { description: 'At a given time', args: { text: 'Call mom', when: '2026-11-23T09:00:00+09:00' } },
      {
        description: 'Every weekday at 7:30, Tokyo time, from the next one',
        args: {
          text: 'Take the medicine',
          when: '2026-11-24T07:30:00+09:00',
          repeat: 'weekdays',
          time_zone: 'Asia/Tokyo',
        },
      },
    ],
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 500, description: 'What to remind of' },
        when: {
          type: 'string',
          format: 'date-time',
          description: 'ISO 8601 date-time with its offset (a repeating reminder: its first time)',
        },
        delay_minutes: { type: 'integer', minimum: 1, maximum: 525600, description: 'Minutes from now' },
        repeat: {
          type: 'string',
          enum: REPEATS,
          description:
            'Repeat at the same clock time: every day, Monday to Friday, or every week on that day',
        },
        time_zone: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          description: `IANA zone whose clock a repeating reminder keeps, e.g. Asia/Tokyo (default ${defaultTimeZone})`,
        },
      },
      required: ['text'],
      additionalProperties: false,
    },
    response: reminderShape,
  }).implement(async (args, context) => {
    const id = newId(context.idempotencyKey);
    return perSource.run(context.source.id, async () => {
      // A call that timed out while it waited its turn (its model was told so) schedules nothing.
      context.signal.throwIfAborted();
      const waiting = await scheduler.list(context.source.id);
      // This call ran before (its turn was resumed): its reminder is scheduled already, whatever
      // the time is now.
      const scheduled = waiting.find((reminder) => reminder.id === id);
      if (scheduled) return scheduledAnswer(scheduled);
      const now = context.clock.now();
      const dueAt = dueAtOf(args, now);
      if (dueAt === undefined)
        return { forLLM: { error: 'give exactly one of when or delay_minutes' }, isError: true as const };
      if (Number.isNaN(dueAt))
        return {
          forLLM: { error: 'when is no date-time: give ISO 8601 with its offset' },
          isError: true as const,
        };
      // A repeating reminder's time is its clock time: one already past today starts with the next.
      if (dueAt <= now && args.repeat === undefined)
        return { forLLM: { error: 'that time has already passed' }, isError: true as const };
      if (dueAt - now > maxAheadMs)
        return { forLLM: { error: 'that is too far ahead' }, isError: true as const };
      const timeZone = args.time_zone ?? defaultTimeZone;
      if (args.time_zone !== undefined && args.repeat === undefined)
        return {
          forLLM: { error: 'time_zone is for a repeating reminder: give repeat too' },
          isError: true as const,
        };
      if (!isValidTimeZone(timeZone))
        return {
          forLLM: { error: `unknown time zone ${timeZone}: give an IANA zone such as Asia/Tokyo` },
          isError: true as const,
        };
      if (waiting.length >= maxPerSource) {
        return {
          forLLM: { error: `this chat already has ${maxPerSource} reminders; cancel one first` },
          isError: true as const,
        };
      }
      // A repeating reminder comes at whole minutes of its zone's clock, from the first one asked for.
      const recurrence = args.repeat && recurrenceOf(dueAt, args.repeat, timeZone);
      const reminder: Reminder = {
        id,
        source: context.source,
        dueAt: recurrence ? nextOccurrence(recurrence, Math.max(now, dueAt - 60_000)) : dueAt,
        text: args.text,
        createdAt: now,
        ...(recurrence && { recurrence }),
        ...(context.sender && { requestedBy: context.sender.userId }),
      };
      context.signal.throwIfAborted();
      await scheduler.schedule(reminder);
      return scheduledAnswer(reminder);
    });
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
      forLLM: { reminders: reminders.map(described) },
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
    // Run again after its process died: its first run may have cancelled the reminder, and a
    // cancelled reminder leaves nothing to find. Either way it no longer waits.
    return cancelled || context.resumed
      ? { forLLM: { cancelled: true } }
      : { forLLM: { error: `no reminder ${args.id} in this chat` }, isError: true };
  });

  return [setReminder, listReminders, cancelReminder] as const;
}

/**
 * When the reminder is due: from exactly one of `when` and `delay_minutes`, else undefined; NaN
 * for a `when` that is no time.
 */
function dueAtOf(args: { when?: string; delay_minutes?: number }, now: number): number | undefined {
  if (args.when !== undefined && args.delay_minutes === undefined) return timeOf(args.when);
  if (args.delay_minutes !== undefined && args.when === undefined) return now + args.delay_minutes * 60_000;
  return undefined;
}

/**
 * A date-time the schema let through, in epoch ms. A leap second (`…T23:59:60Z`) is a valid
 * RFC 3339 time that `Date.parse` reads as no time at all (NaN): it is the second after :59.
 */
function timeOf(when: string): number {
  const at = Date.parse(when);
  if (!Number.isNaN(at) || when.slice(16, 19) !== ':60') return at;
  return Date.parse(`${when.slice(0, 16)}:59${when.slice(19)}`) + 1000;
}

/** What `set_reminder` answers: an async tool returns now; the reminder comes back through the inbox. */
function scheduledAnswer(reminder: Reminder) {
  return { forLLM: described(reminder), async: true };
}

/** A reminder as the model reads it: when it comes next, and how it repeats. */
function described(reminder: Reminder) {
  return {
    id: reminder.id,
    due: new Date(reminder.dueAt).toISOString(),
    text: reminder.text,
    ...(reminder.recurrence && {
      repeat: reminder.recurrence.repeat,
      time_zone: reminder.recurrence.timeZone,
    }),
  };
}
