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

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded up to the next whole second. */
export function atExpression(epochMs: number): string {
  return `at(${new Date(Math.ceil(epochMs / 1000) * 1000).toISOString().slice(0, 19)})`;
}

/** The epoch ms an `at(…)` expression in UTC names, or undefined when it is not one. */
export function parseAtExpression(expression: string | undefined): number | undefined {
  const match = /^at\((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\)$/.exec(expression ?? '');
  return match ? Date.parse(`${match[1]}Z`) : undefined;
}
