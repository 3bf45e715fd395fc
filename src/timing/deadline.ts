import { KaiwaError } from '../errors/index.js';
import { reasonOf } from './sleep.js';

const marker = Symbol.for('kaiwa.error.DeadlineExceededError');

/** The deadline passed before the work settled. */
export class DeadlineExceededError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'DeadlineExceededError' as const;

  constructor(
    /** Epoch ms (on the clock the caller gave) that passed. */
    readonly deadline: number,
  ) {
    super(`the deadline passed (${new Date(deadline).toISOString()})`);
  }

  /** True for a `DeadlineExceededError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is DeadlineExceededError {
    return KaiwaError.hasMarker(value, marker);
  }
}

export interface DeadlineOptions {
  /** Epoch ms on `now`'s clock by which the work must settle. Unset: no deadline. */
  readonly deadline?: number;
  /** The caller's signal: when it aborts, its reason is thrown at once. */
  readonly signal?: AbortSignal;
  /** The clock `deadline` is on. Default `Date.now`. */
  readonly now?: () => number;
}

// Node fires a longer timer at once (TimeoutOverflowWarning): longer waits are chained.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Settles with `work`'s outcome, or rejects when the deadline passes first (with a
 * {@link DeadlineExceededError}) or the caller's signal aborts first (with its reason). `work`
 * gets a signal that aborts with that same error, so it can stop; work that ignores it is
 * abandoned, never waited for, and its late failure is swallowed. Nothing is started when the
 * deadline has passed or the signal has aborted already; the timer and the listener are gone
 * once this settles. The delay is measured on `now` once, then counted by a real timer.
 * @example
 * const answer = await withDeadline((signal) => fetch(url, { signal }), { deadline: turnEndsAt, signal });
 */
export function withDeadline<T>(
  work: ((signal: AbortSignal) => Promise<T>) | Promise<T>,
  options: DeadlineOptions = {},
): Promise<T> {
  const { deadline, signal: caller, now = Date.now } = options;
  // A promise not raced is nobody's: its late rejection must not become unhandled.
  const abandon = () => {
    if (typeof work !== 'function') work.catch(() => undefined);
  };
  if (caller?.aborted) {
    abandon();
    return Promise.reject(reasonOf(caller));
  }
  const remaining = deadline === undefined ? Infinity : deadline - now();
  if (remaining <= 0) {
    abandon();
    return Promise.reject(new DeadlineExceededError(deadline!));
  }

  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    const stop = (reason: Error) => {
      controller.abort(reason);
      reject(reason);
    };
    if (deadline !== undefined) {
      const arm = (left: number) => {
        timer = setTimeout(
          () => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : stop(new DeadlineExceededError(deadline))),
          Math.min(left, MAX_TIMER_MS),
        );
      };
      arm(remaining);
    }
    if (caller) {
      onAbort = () => stop(reasonOf(caller));
      caller.addEventListener('abort', onAbort, { once: true });
    }
  });
  const running =
    typeof work === 'function' ? new Promise<T>((resolve) => resolve(work(controller.signal))) : work;
  return Promise.race([running, stopped]).finally(() => {
    clearTimeout(timer);
    if (onAbort) caller?.removeEventListener('abort', onAbort);
  });
}
