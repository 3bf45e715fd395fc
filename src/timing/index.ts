export { backoffDelay } from './backoff.js';
export type { BackoffHints, BackoffPolicy, Jitter } from './backoff.js';
export { DeadlineExceededError, withDeadline } from './deadline.js';
export type { DeadlineOptions } from './deadline.js';
export { retryAfterMs } from './retry-after.js';
export { sleep } from './sleep.js';
export type { Sleep } from './sleep.js';
export { OneAtATime } from './one-at-a-time.js';
