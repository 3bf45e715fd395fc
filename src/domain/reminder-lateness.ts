import type { ChatEvent } from './inbound-message.js';

/**
 * A reminder due this long after its time is late enough to say so: a local process down at
 * its time, or a reminder function retried for hours. The scheduler itself fires within a minute.
 */
export const REMINDER_LATE_AFTER_MS = 5 * 60_000;

/** How late a reminder due came (ms) when that is worth saying; undefined for anything else. */
export function reminderLateBy(entry: {
  readonly event?: ChatEvent;
  readonly timestamp: number;
  readonly dueAt?: number;
}): number | undefined {
  if (entry.event !== 'reminder' || entry.dueAt === undefined) return undefined;
  const late = entry.timestamp - entry.dueAt;
  return Number.isFinite(late) && late >= REMINDER_LATE_AFTER_MS ? late : undefined;
}

/** "40 seconds", "3 hours", "2 days": a delay in the largest whole unit, for a text someone reads. */
export function delayInWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const [count, unit] =
    ms < 120_000
      ? [Math.floor(ms / 1000), 'second']
      : minutes < 120
        ? [minutes, 'minute']
        : minutes < 48 * 60
          ? [Math.floor(minutes / 60), 'hour']
          : [Math.floor(minutes / 1440), 'day'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
