/**
 * The wait (ms) an HTTP `Retry-After` header asks for (RFC 9110 §10.2.3): a number of
 * seconds, or an HTTP date measured against `now` — ideally the server's own `Date` header,
 * so clock skew does not matter. `undefined` when absent or unreadable; a past date is 0.
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date) || !/[a-z]/i.test(value)) return undefined;
  return Math.max(0, date - now);
}
