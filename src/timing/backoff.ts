/**
 * How the delay is drawn from the exponential ceiling (see the AWS Architecture Blog,
 * "Exponential Backoff And Jitter"):
 * - `full`: anywhere in [0, ceiling] — the fewest collisions, so the default;
 * - `equal`: half the ceiling fixed, half random — never retries at once;
 * - `decorrelated`: between the base and three times the previous delay, capped — for loops
 *   that keep their last delay rather than an attempt number.
 */
export type Jitter = 'full' | 'equal' | 'decorrelated';

/** An exponential backoff: the ceiling starts at `baseMs` and doubles per attempt up to `maxMs`. */
export interface BackoffPolicy {
  /** The first attempt's ceiling (ms), before jitter. */
  readonly baseMs: number;
  /** The cap of the backoff (ms). A larger server-given delay still wins. */
  readonly maxMs: number;
  /** Default `full`. */
  readonly jitter?: Jitter;
  /** 0 ≤ random() < 1; injected by tests. Default `Math.random`. */
  readonly random?: () => number;
}

/** What a caller knows beyond the attempt number. */
export interface BackoffHints {
  /** The delay waited before this one (decorrelated jitter grows from it). */
  readonly previousDelayMs?: number;
  /** How long the server asked to wait (`Retry-After`, Gemini's `RetryInfo`), in ms. */
  readonly serverDelayMs?: number;
}

// 2^30 · base is far beyond any cap; the bound keeps the arithmetic finite.
const MAX_EXPONENT = 30;
// Clients told the same moment by a server are spread over up to 10 % more, so they do not all return at once.
const SERVER_DELAY_SPREAD = 0.1;

/**
 * The wait (ms, whole) after failed attempt `attempt` (1 for the first) before the next one.
 * A server-given delay wins when it is larger than the backoff, even beyond `maxMs`: the
 * cap bounds our own guess, not what the server asked for (callers that will not wait that
 * long give up instead).
 * @example
 * await sleep(backoffDelay(attempt, { baseMs: 500, maxMs: 8_000 }, { serverDelayMs }), signal);
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, hints: BackoffHints = {}): number {
  checkPolicy(policy);
  const random = policy.random ?? Math.random;
  const backoff = jittered(attempt, policy, random, hints.previousDelayMs);
  if (hints.serverDelayMs === undefined) return Math.round(backoff);
  const server = hints.serverDelayMs * (1 + SERVER_DELAY_SPREAD * random());
  return Math.round(Math.max(backoff, server));
}

function jittered(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number,
  previousDelayMs: number | undefined,
): number {
  const { baseMs, maxMs } = policy;
  switch (policy.jitter ?? 'full') {
    case 'decorrelated': {
      const upper = Math.max(baseMs, 3 * (previousDelayMs ?? baseMs));
      return Math.min(maxMs, baseMs + random() * (upper - baseMs));
    }
    case 'equal': {
      const ceiling = ceilingOf(attempt, policy);
      return ceiling / 2 + (ceiling / 2) * random();
    }
    case 'full':
      return random() * ceilingOf(attempt, policy);
  }
}

function ceilingOf(attempt: number, { baseMs, maxMs }: BackoffPolicy): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, MAX_EXPONENT);
  return Math.min(maxMs, baseMs * 2 ** exponent);
}

function checkPolicy({ baseMs, maxMs }: BackoffPolicy): void {
  if (!(Number.isFinite(baseMs) && baseMs >= 0 && Number.isFinite(maxMs) && maxMs >= 0)) {
    throw new RangeError(`backoff needs finite, non-negative baseMs and maxMs (got ${baseMs}, ${maxMs})`);
  }
}
