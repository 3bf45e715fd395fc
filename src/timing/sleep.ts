/** Waits `ms` milliseconds; rejects with the signal's reason when it aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * A real timer that stops at once when `signal` aborts (a stopping actor or a shut-down
 * process does not sit out a retry delay), and leaves neither timer nor listener behind.
 * @example
 * await sleep(backoffDelay(attempt, policy), signal);
 */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(reasonOf(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(reasonOf(signal!));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** An aborted signal's reason: an `AbortError` DOMException unless the aborter gave one. */
export function reasonOf(signal: AbortSignal): Error {
  return signal.reason as Error;
}
