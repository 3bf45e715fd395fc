export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
  /** 0..1; defaults to Math.random. */
  readonly random?: () => number;
}

export const defaultBackoff: BackoffOptions = { baseMs: 50, maxMs: 30_000 };

/** "Full jitter" exponential backoff: a random delay up to base·2^attempt, capped. */
export function backoffDelay(attempt: number, options: BackoffOptions = defaultBackoff): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round((options.random ?? Math.random)() * ceiling);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
