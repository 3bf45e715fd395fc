import { zonedParts } from '../domain/index.js';

/** How a reminder repeats: every day, Monday to Friday, or every week on the same day. */
export const REPEATS = ['daily', 'weekdays', 'weekly'] as const;
export type Repeat = (typeof REPEATS)[number];

/**
 * A repeating reminder's rule: the wall-clock time of its occurrences in its time zone, so that
 * "every day at 8" stays at 8 across daylight saving time. Fixed when the reminder is set.
 */
export interface Recurrence {
  readonly repeat: Repeat;
  /** An IANA zone, e.g. "Asia/Tokyo". */
  readonly timeZone: string;
  readonly hour: number;
  readonly minute: number;
  /** 0 (Sunday) to 6: the day of a weekly reminder. */
  readonly weekday: number;
}

/** The wall-clock time of `at` in `timeZone`; `weekday` 0 is Sunday. */
export function localTimeOf(at: number, timeZone: string) {
  const parts = zonedParts(at, timeZone, {
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    weekday: 'short',
  });
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
  };
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The rule of a reminder repeating `repeat` at the wall-clock minute `first` has in `timeZone`. */
export function recurrenceOf(first: number, repeat: Repeat, timeZone: string): Recurrence {
  const local = localTimeOf(first, timeZone);
  return { repeat, timeZone, hour: local.hour, minute: local.minute, weekday: local.weekday };
}

/**
 * The first occurrence strictly after `after` (epoch ms, whole minutes). A wall-clock time that
 * a spring-forward skips comes an hour later that day; one that an autumn night has twice comes
 * at the first of the two.
 */
export function nextOccurrence(recurrence: Recurrence, after: number): number {
  const today = localTimeOf(after, recurrence.timeZone);
  for (let days = 0; days <= 8; days++) {
    // Calendar arithmetic on a UTC date: it has no daylight saving time to trip over.
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + days));
    const weekday = date.getUTCDay();
    if (recurrence.repeat === 'weekdays' && (weekday === 0 || weekday === 6)) continue;
    if (recurrence.repeat === 'weekly' && weekday !== recurrence.weekday) continue;
    const at = instantOf(date, recurrence.hour, recurrence.minute, recurrence.timeZone);
    if (at > after) return at;
  }
  throw new RangeError(`no occurrence of ${JSON.stringify(recurrence)} within 8 days of ${after}`);
}

/**
 * EventBridge Scheduler's expression for the rule (with `ScheduleExpressionTimezone` set to its
 * zone): `cron(minutes hours day-of-month month day-of-week year)`.
 */
export function cronExpression(recurrence: Recurrence): string {
  const days =
    recurrence.repeat === 'daily'
      ? '*'
      : recurrence.repeat === 'weekdays'
        ? 'MON-FRI'
        : WEEKDAYS[recurrence.weekday]!.toUpperCase();
  return `cron(${recurrence.minute} ${recurrence.hour} ? * ${days} *)`;
}

/** A value read back from storage that is a rule `nextOccurrence` can follow. */
export function isRecurrence(value: unknown): value is Recurrence {
  const rule = value as Partial<Recurrence> | null;
  return (
    typeof rule === 'object' &&
    rule !== null &&
    REPEATS.includes(rule.repeat as Repeat) &&
    typeof rule.timeZone === 'string' &&
    isClockNumber(rule.hour, 23) &&
    isClockNumber(rule.minute, 59) &&
    isClockNumber(rule.weekday, 6)
  );
}

function isClockNumber(value: unknown, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;
}

/** The epoch ms of a wall-clock minute on a date in `timeZone` (see `nextOccurrence` for gaps). */
function instantOf(date: Date, hour: number, minute: number, timeZone: string): number {
  const wanted = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), hour, minute);
  // The zone's offset at a guess, then at the result: two steps settle it, a gap included.
  let at = wanted - offsetAt(wanted, timeZone);
  const corrected = wanted - offsetAt(at, timeZone);
  if (corrected !== at && localMinuteOf(corrected, timeZone) === wanted) at = corrected;
  else if (localMinuteOf(at, timeZone) !== wanted) at = Math.max(at, corrected);
  return at;
}

/** How far the zone's wall clock is ahead of UTC at `at` (ms). */
function offsetAt(at: number, timeZone: string): number {
  return localMinuteOf(at, timeZone) - Math.floor(at / 60_000) * 60_000;
}

/** The wall-clock minute of `at` in `timeZone`, written as if it were UTC (epoch ms). */
function localMinuteOf(at: number, timeZone: string): number {
  const local = localTimeOf(at, timeZone);
  return Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
}
