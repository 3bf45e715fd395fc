import { defaults } from '../defaults/index.js';
import { backoffDelay as exponentialDelay, type BackoffPolicy } from '../timing/index.js';

export { sleep } from '../timing/index.js';

export type BackoffOptions = BackoffPolicy;

export const defaultBackoff: BackoffOptions = defaults.host.backoff;

/** The shared backoff counted from 0 (a source's failures so far): up to base·2^attempt, capped. */
export function backoffDelay(attempt: number, options: BackoffOptions = defaultBackoff): number {
  return exponentialDelay(attempt + 1, options);
}
