import type { Clock } from '../../domain/index.js';
import { backoffDelay, DeadlineExceededError, withDeadline, type Sleep } from '../../timing/index.js';
import { classifyGeminiFailure, type GeminiFailure } from './gemini-failure.js';
import type { ResolvedRetryOptions } from './gemini-options.js';
import { ModelUnavailableError } from './model-unavailable-error.js';
import { ResponseObserver } from './response-observer.js';

/** One attempt's means: its own signal (caller + attempt timeout) and a response observer. */
export interface Attempt {
  /** 1 for the first. */
  readonly number: number;
  readonly signal: AbortSignal;
  readonly observer: ResponseObserver;
}

/** A retry the loop is about to wait for (for the logs). */
export interface RetryNotice {
  readonly attempt: number;
  readonly delayMs: number;
  readonly failure: GeminiFailure;
}

export interface RetryContext {
  readonly policy: ResolvedRetryOptions;
  readonly clock: Clock;
  readonly sleep: Sleep;
  readonly random: () => number;
  /** The caller's signal: when it aborts, its reason is thrown as is, never retried. */
  readonly signal: AbortSignal;
  /** Epoch ms (on `clock`) by which everything, waits included, must be over. */
  readonly deadline?: number;
  readonly onRetry?: (notice: RetryNotice) => void;
}

type AttemptOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown; readonly failure: GeminiFailure };

/**
 * Runs `operation` until it succeeds, retrying 429, 5xx, network errors, attempt timeouts
 * and malformed bodies with exponential backoff and jitter, or the server's own retry delay.
 * Throws {@link ModelUnavailableError} when the failure is not retryable, the attempts run
 * out, the server asks for a wait beyond `maxServerDelayMs`, or the deadline would pass.
 */
export async function callWithRetry<T>(
  operation: (attempt: Attempt) => Promise<T>,
  context: RetryContext,
): Promise<T> {
  const { policy, clock, deadline } = context;
  let last: { error: unknown; failure: GeminiFailure } | undefined;
  for (let number = 1; ; number++) {
    context.signal.throwIfAborted();
    const remaining = deadline === undefined ? Infinity : deadline - clock.now();
    if (remaining <= 0) throw unavailable('deadline', number - 1, last);

    const timeoutMs = Math.min(policy.attemptTimeoutMs, remaining);
    const outcome = await runAttempt(operation, number, timeoutMs, context);
    if (outcome.ok) return outcome.value;
    last = outcome;
    const { failure } = outcome;

    if (failure.kind === 'timeout' && timeoutMs === remaining) throw unavailable('deadline', number, last);
    if (!failure.retryable || number >= policy.maxAttempts) throw unavailable(failure.kind, number, last);
    if (failure.retryDelayMs !== undefined && failure.retryDelayMs > policy.maxServerDelayMs) {
      throw unavailable(failure.kind, number, last);
    }
    const delayMs = retryDelay(failure, number, policy, context.random);
    if (deadline !== undefined && clock.now() + delayMs >= deadline)
      throw unavailable('deadline', number, last);
    context.onRetry?.({ attempt: number, delayMs, failure });
    await context.sleep(delayMs, context.signal);
  }
}

async function runAttempt<T>(
  operation: (attempt: Attempt) => Promise<T>,
  number: number,
  timeoutMs: number,
  context: RetryContext,
): Promise<AttemptOutcome<T>> {
  const observer = new ResponseObserver();
  const { clock, signal: callerSignal } = context;
  try {
    const value = await withDeadline((signal) => operation({ number, signal, observer }), {
      deadline: clock.now() + timeoutMs,
      now: () => clock.now(),
      signal: callerSignal,
    });
    return { ok: true, value };
  } catch (error) {
    callerSignal.throwIfAborted();
    const timedOut = DeadlineExceededError.isInstance(error);
    return { ok: false, error, failure: classifyGeminiFailure(error, observer.last, timedOut) };
  }
}

/**
 * The server's delay when it gave one and it is longer (spread by up to 10%); else exponential
 * backoff with "equal jitter" (half fixed, half random), which never retries at once.
 */
export function retryDelay(
  failure: GeminiFailure,
  attempt: number,
  policy: ResolvedRetryOptions,
  random: () => number,
): number {
  return backoffDelay(
    attempt,
    { baseMs: policy.initialDelayMs, maxMs: policy.maxDelayMs, jitter: 'equal', random },
    failure.retryDelayMs === undefined ? {} : { serverDelayMs: failure.retryDelayMs },
  );
}

function unavailable(
  kind: ModelUnavailableError['kind'],
  attempts: number,
  last: { error: unknown; failure: GeminiFailure } | undefined,
): ModelUnavailableError {
  return new ModelUnavailableError(kind, attempts, last?.failure.status, last && { cause: last.error });
}
