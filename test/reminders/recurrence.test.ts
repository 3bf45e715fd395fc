import { describe, expect, it } from 'vitest';
import {
  cronExpression,
  isRecurrence,
  nextOccurrence,
  recurrenceOf,
  type Recurrence,
} from '../../src/reminders/recurrence.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('a repeating reminder', () => {
  it('comes every day at its wall-clock minute in its zone', () => {
    const rule = recurrenceOf(at('2026-11-29T08:00:00+09:00'), 'daily', 'Asia/Tokyo');

    expect(rule).toEqual({ repeat: 'daily', timeZone: 'Asia/Tokyo', hour: 8, minute: 0, weekday: 0 });
    expect(iso(nextOccurrence(rule, at('2026-11-29T08:00:00+09:00')))).toBe('2026-11-29T23:00:00.000Z');
    expect(iso(nextOccurrence(rule, at('2026-11-29T07:59:59+09:00')))).toBe('2026-11-28T23:00:00.000Z');
  });

  it('skips Saturday and Sunday on weekdays, and keeps its day weekly', () => {
    // 2026-11-27 is a Friday.
    const weekdays = recurrenceOf(at('2026-11-27T07:30:00+09:00'), 'weekdays', 'Asia/Tokyo');
    expect(iso(nextOccurrence(weekdays, at('2026-11-27T07:30:00+09:00')))).toBe('2026-11-29T22:30:00.000Z');
    const weekly = recurrenceOf(at('2026-11-27T19:00:00+09:00'), 'weekly', 'Asia/Tokyo');
    expect(weekly.weekday).toBe(5);
    expect(iso(nextOccurrence(weekly, at('2026-11-27T19:00:00+09:00')))).toBe('2026-12-04T10:00:00.000Z');
  });

  it('stays at 8 in New York across both daylight saving changes', () => {
    const rule = recurrenceOf(at('2026-03-07T08:00:00-05:00'), 'daily', 'America/New_York');
    // Standard time (UTC−5), then daylight time (UTC−4) from 2026-03-08.
    expect(iso(nextOccurrence(rule, at('2026-03-07T08:00:00-05:00')))).toBe('2026-03-08T12:00:00.000Z');
    expect(iso(nextOccurrence(rule, at('2026-10-31T08:00:00-04:00')))).toBe('2026-11-01T13:00:00.000Z');
  });

  it('comes an hour later on the night a time is skipped, and once on the night it happens twice', () => {
    const skipped: Recurrence = {
      repeat: 'daily',
      timeZone: 'America/New_York',
      hour: 2,
      minute: 30,
      weekday: 0,
    };
    // 02:30 does not exist on 2026-03-08: 03:30 daylight time.
    expect(iso(nextOccurrence(skipped, at('2026-03-07T12:00:00Z')))).toBe('2026-03-08T07:30:00.000Z');
    const twice: Recurrence = { ...skipped, hour: 1 };
    // 01:30 happens twice on 2026-11-01: the first, daylight time; then the next day's.
    const first = nextOccurrence(twice, at('2026-10-31T12:00:00Z'));
    expect(iso(first)).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(nextOccurrence(twice, first))).toBe('2026-11-02T06:30:00.000Z');
  });

  it("is EventBridge Scheduler's cron in its zone", () => {
    const base: Recurrence = { repeat: 'daily', timeZone: 'Asia/Tokyo', hour: 8, minute: 5, weekday: 3 };
    expect(cronExpression(base)).toBe('cron(5 8 ? * * *)');
    expect(cronExpression({ ...base, repeat: 'weekdays' })).toBe('cron(5 8 ? * MON-FRI *)');
    expect(cronExpression({ ...base, repeat: 'weekly' })).toBe('cron(5 8 ? * WED *)');
  });

  it('reads back only a rule it can follow', () => {
    const rule: Recurrence = { repeat: 'weekly', timeZone: 'UTC', hour: 23, minute: 59, weekday: 6 };
    expect(isRecurrence(rule)).toBe(true);
    for (const broken of [
      { ...rule, repeat: 'hourly' },
      { ...rule, hour: 24 },
      { ...rule, weekday: 1.5 },
      null,
    ])
      expect(isRecurrence(broken)).toBe(false);
  });
});
