import { HTTPFetchError } from '@line/bot-sdk';
import type { CallOutcome } from './delivery-policy.js';
import { LineRequestError } from './line-request-error.js';

/**
 * What a LINE call's answer — or the lack of one — means for a delivery (see
 * {@link CallOutcome}). `undefined` is a call that resolved: 2xx.
 */
export function callOutcomeOf(error: unknown, signal: AbortSignal): CallOutcome {
  if (error === undefined) return 'accepted';
  if (signal.aborted) return 'aborted';
  if (LineRequestError.isInstance(error)) {
    // Timed out, cut or an absurd answer: LINE may have taken the request all the same.
    return error.reason === 'aborted' ? 'aborted' : 'ambiguous';
  }
  if (!(error instanceof HTTPFetchError)) return 'refused';
  if (error.status >= 500) return 'ambiguous';
  if (error.status === 409) return 'duplicate';
  if (error.status === 429) return isMonthlyLimit(error) ? 'monthly-limit' : 'rate-limited';
  if (error.status === 400 && /reply token/i.test(String(error.body))) return 'invalid-reply-token';
  return 'refused';
}

/** LINE's 429 "You have reached your monthly limit.": the channel's message quota is used up. */
export function isMonthlyLimit(error: unknown): boolean {
  return error instanceof HTTPFetchError && error.status === 429 && /monthly limit/i.test(String(error.body));
}

/** LINE's ids on an error answer: its own, and on a 409 the id of the request it accepted before. */
export function requestIdsOf(error: unknown): { requestId?: string; acceptedRequestId?: string } {
  if (!(error instanceof HTTPFetchError)) return {};
  const requestId = error.headers.get('x-line-request-id') ?? undefined;
  const acceptedRequestId = error.headers.get('x-line-accepted-request-id') ?? undefined;
  return { ...(requestId && { requestId }), ...(acceptedRequestId && { acceptedRequestId }) };
}
