import { createHash } from 'node:crypto';

// EventBridge Scheduler names: 1–64 characters of [0-9a-zA-Z-_.]; times in `at(…)` are whole seconds.

const SAFE_PART = /^[0-9A-Za-z_-]{1,40}$/;

/**
 * A source id as part of a schedule name. LINE's ids (`U`/`C`/`R` + 32 hex) are used as they
 * are, so an operator can read them; anything else becomes a hash that cannot contain `.`.
 */
export function scheduleNamePart(sourceId: string): string {
  return SAFE_PART.test(sourceId)
    ? sourceId
    : `h${createHash('sha256').update(sourceId).digest('hex').slice(0, 32)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Reminder ids of the first format (8 hex characters; tests used short words): kept as they were. */
const FIRST_FORMAT_ID = /^[0-9A-Za-z_-]{1,23}$/;

/**
 * A reminder's schedule name, `<source part>.<reminder part>`, or undefined for an id no reminder
 * has. A UUID (36 characters) would not fit beside a 33-character LINE id in 64, so its 16 bytes
 * are written as 22 characters of base64url (`[A-Za-z0-9_-]`, no `.`): whole, so two reminders
 * never share a name, and at most 40 + 1 + 23 = 64 characters.
 */
export function reminderScheduleName(sourceId: string, reminderId: string): string | undefined {
  const part = UUID.test(reminderId)
    ? Buffer.from(reminderId.replaceAll('-', ''), 'hex').toString('base64url')
    : FIRST_FORMAT_ID.test(reminderId)
      ? reminderId
      : undefined;
  return part && `${scheduleNamePart(sourceId)}.${part}`;
}

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded up to the next whole second. */
export function atExpression(epochMs: number): string {
  return `at(${new Date(Math.ceil(epochMs / 1000) * 1000).toISOString().slice(0, 19)})`;
}

/** The epoch ms an `at(…)` expression in UTC names, or undefined when it is not one. */
export function parseAtExpression(expression: string | undefined): number | undefined {
  const match = /^at\((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\)$/.exec(expression ?? '');
  return match ? Date.parse(`${match[1]}Z`) : undefined;
}
