import { describe, expect, it } from 'vitest';
import { delayInWords, REMINDER_LATE_AFTER_MS, reminderLateBy } from '../../src/domain/index.js';

describe('a reminder due that came late', () => {
  const due = { event: 'reminder' as const, dueAt: 1_000_000 };

  it('is late from five minutes after its time, and only a reminder can be', () => {
    expect(reminderLateBy({ ...due, timestamp: due.dueAt + REMINDER_LATE_AFTER_MS - 1 })).toBeUndefined();
    expect(reminderLateBy({ ...due, timestamp: due.dueAt + REMINDER_LATE_AFTER_MS })).toBe(
      REMINDER_LATE_AFTER_MS,
    );
    expect(reminderLateBy({ timestamp: due.dueAt + 3_600_000, dueAt: due.dueAt })).toBeUndefined();
    expect(reminderLateBy({ event: 'reminder', timestamp: 9e15 })).toBeUndefined();
    expect(reminderLateBy({ ...due, timestamp: Number.NaN })).toBeUndefined();
  });

  it('says how late in the largest whole unit', () => {
    expect(delayInWords(5 * 60_000)).toBe('5 minutes');
    expect(delayInWords(119 * 60_000)).toBe('119 minutes');
    expect(delayInWords(2 * 3_600_000)).toBe('2 hours');
    expect(delayInWords(47 * 3_600_000 + 59 * 60_000)).toBe('47 hours');
    expect(delayInWords(48 * 3_600_000)).toBe('2 days');
    expect(delayInWords(2 * 60_000)).toBe('2 minutes');
    expect(delayInWords(60_000)).toBe('60 seconds');
    expect(delayInWords(1_500)).toBe('1 second');
  });
});
