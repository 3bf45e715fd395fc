/**
 * How one LINE call of a delivery ended, as far as delivery is concerned.
 * - `accepted`: 2xx.
 * - `invalid-reply-token`: 400 "Invalid reply token" — the token was used or has expired.
 * - `duplicate`: 409 for a retry key LINE already accepted.
 * - `ambiguous`: 5xx, a timeout, a network error or a connection dropped mid-answer: LINE may
 *   have taken the request.
 * - `rate-limited`: 429 other than the monthly limit: not taken, try again later.
 * - `monthly-limit`: 429 "You have reached your monthly limit." — may clear while another
 *   delivery's reservation is released (LINE's FAQ), so it is tried again, slowly.
 * - `refused`: any other 4xx: LINE will refuse it again.
 * - `aborted`: the turn's signal ended the call.
 */
export type CallOutcome =
  | 'accepted'
  | 'invalid-reply-token'
  | 'duplicate'
  | 'ambiguous'
  | 'rate-limited'
  | 'monthly-limit'
  | 'refused'
  | 'aborted';

/** Where a delivery stands when the policy is asked what to do next. */
export interface DeliverySituation {
  /** The call that just ended, or `start` before the first. */
  readonly step: 'start' | 'reply' | 'push';
  /** How that call ended; absent at `start`. */
  readonly outcome?: CallOutcome;
  /** The delivery has a reply token younger than `KAIWA_REPLY_TOKEN_TTL_MS`. */
  readonly tokenFresh: boolean;
  /**
   * An earlier attempt of this delivery may have reached LINE: it was resumed by a new owner, a
   * previous attempt of its slot failed, or a reply of this attempt got an ambiguous answer.
   */
  readonly mayHaveBeenSent: boolean;
  /** The reply was already tried again after an ambiguous answer. */
  readonly replyRetried: boolean;
  /** Another push try fits in the delivery's attempts (429, 5xx, timeout, network). */
  readonly attemptsLeft: boolean;
  /** Monthly-limit 429s already retried in this delivery. */
  readonly monthlyRetries: number;
  /**
   * The delivery's intent is older than LINE's 24-hour retry-key window, so a repeated key is no
   * longer recognised (a dead-letter re-run days later).
   */
  readonly retryKeyExpired: boolean;
}

/** What the delivery does next. */
export type DeliveryAction =
  /** Send by the reply API with the event's token. */
  | { readonly kind: 'reply' }
  /** Send the same reply again, with the same token. */
  | { readonly kind: 'retry-reply' }
  /** Send by push with the slot's retry key; `unprotected`: LINE no longer knows the key. */
  | { readonly kind: 'push'; readonly unprotected?: true }
  /** Send the push again with the same key, after a backoff or the monthly-limit wait. */
  | { readonly kind: 'retry-push'; readonly wait: 'backoff' | 'monthly-limit' }
  /** The user has the message: record it as sent, never send it again. */
  | { readonly kind: 'delivered' }
  /** Give up: the turn records the delivery as failed; `monthlyLimit`: count and log it. */
  | { readonly kind: 'fail'; readonly monthlyLimit?: true };

/** One row of the policy table in docs/line.md ("Delivery policy"). */
export interface PolicyRow {
  /** A stable name, used by the tests and the logs. */
  readonly id: string;
  /** The situation, in the words of the docs table. */
  readonly situation: string;
  /** The action, in the words of the docs table. */
  readonly says: string;
  readonly when: (situation: DeliverySituation) => boolean;
  readonly action: DeliveryAction;
}

/** The monthly-limit 429 is retried this many times at most (SPEC, "LINE details"). */
export const MONTHLY_LIMIT_RETRIES = 3;

const after =
  (step: DeliverySituation['step'], ...outcomes: CallOutcome[]) =>
  (situation: DeliverySituation) =>
    situation.step === step && situation.outcome !== undefined && outcomes.includes(situation.outcome);

/**
 * kaiwa's delivery policy: the first row whose `when` holds decides. Rows are data, so the tests
 * check them one by one and docs/line.md lists them in this order.
 */
export const deliveryPolicy: readonly PolicyRow[] = [
  {
    id: 'fresh-token',
    situation: 'a reply token younger than `KAIWA_REPLY_TOKEN_TTL_MS`',
    says: 'reply',
    when: (s) => s.step === 'start' && s.tokenFresh,
    action: { kind: 'reply' },
  },
  {
    id: 'resumed-past-key-window',
    situation:
      'no fresh token, the delivery may have been sent and its intent is older than the 24-hour retry-key window',
    says: 'push, warning that LINE no longer dedupes this key (the one duplicate left, see below)',
    when: (s) => s.step === 'start' && s.mayHaveBeenSent && s.retryKeyExpired,
    action: { kind: 'push', unprotected: true },
  },
  {
    id: 'no-fresh-token',
    situation: 'no reply token, or one older than `KAIWA_REPLY_TOKEN_TTL_MS`',
    says: "push with the slot's retry key",
    when: (s) => s.step === 'start',
    action: { kind: 'push' },
  },
  {
    id: 'reply-accepted',
    situation: 'reply answered 2xx',
    says: 'delivered',
    when: after('reply', 'accepted'),
    action: { kind: 'delivered' },
  },
  {
    id: 'reply-ambiguous',
    situation: 'reply answered 5xx, timed out or lost its connection, for the first time',
    says: 'reply again once, with the same token',
    when: (s) => after('reply', 'ambiguous')(s) && !s.replyRetried,
    action: { kind: 'retry-reply' },
  },
  {
    id: 'reply-token-used',
    situation:
      '"Invalid reply token" on a fresh token, when the delivery may have been sent (resumed, a retried slot, or after an ambiguous reply)',
    says: 'delivered: recorded, never pushed',
    when: (s) => after('reply', 'invalid-reply-token')(s) && s.mayHaveBeenSent,
    action: { kind: 'delivered' },
  },
  {
    id: 'reply-token-expired',
    situation: '"Invalid reply token" on the first attempt of the process that wrote the intent',
    says: 'the token expired early: push',
    when: after('reply', 'invalid-reply-token'),
    action: { kind: 'push' },
  },
  {
    id: 'reply-unavailable',
    situation: 'reply ambiguous again after its one retry, or answered 429',
    says: 'push with the retry key (after a second ambiguous reply the user may see it twice)',
    when: after('reply', 'ambiguous', 'rate-limited', 'monthly-limit'),
    action: { kind: 'push' },
  },
  {
    id: 'reply-refused',
    situation: 'reply answered another 4xx',
    says: 'LINE did not take it: push with the retry key',
    when: after('reply', 'refused'),
    action: { kind: 'push' },
  },
  {
    id: 'push-accepted',
    situation: 'push answered 2xx',
    says: 'delivered',
    when: after('push', 'accepted'),
    action: { kind: 'delivered' },
  },
  {
    id: 'push-duplicate',
    situation: 'push answered 409 for its retry key',
    says: 'delivered (an earlier try was accepted; its `x-line-accepted-request-id` is logged)',
    when: after('push', 'duplicate'),
    action: { kind: 'delivered' },
  },
  {
    id: 'push-transient',
    situation: 'push answered 5xx or 429, timed out or lost its connection, attempts left',
    says: 'push again with the same key after a jittered backoff',
    when: (s) => after('push', 'ambiguous', 'rate-limited')(s) && s.attemptsLeft,
    action: { kind: 'retry-push', wait: 'backoff' },
  },
  {
    id: 'monthly-limit-retry',
    situation: `push answered the monthly-limit 429, fewer than ${MONTHLY_LIMIT_RETRIES} retries so far`,
    says: 'push again with the same key after `KAIWA_MONTHLY_LIMIT_RETRY_MS` (3 × 200 s ≥ 10 min)',
    when: (s) => after('push', 'monthly-limit')(s) && s.monthlyRetries < MONTHLY_LIMIT_RETRIES,
    action: { kind: 'retry-push', wait: 'monthly-limit' },
  },
  {
    id: 'monthly-limit-final',
    situation: `push answered the monthly-limit 429 after ${MONTHLY_LIMIT_RETRIES} retries`,
    says: 'fail; counted and logged as an error',
    when: after('push', 'monthly-limit'),
    action: { kind: 'fail', monthlyLimit: true },
  },
  {
    id: 'give-up',
    situation: 'anything else: a push answered another 4xx, the attempts used up, the turn aborted',
    says: 'fail: the turn records the delivery as failed and tells the model',
    when: () => true,
    action: { kind: 'fail' },
  },
];

/** The row that decides `situation`: the first whose condition holds. */
export function decideDelivery(situation: DeliverySituation): PolicyRow {
  // The last row always holds.
  return deliveryPolicy.find((row) => row.when(situation))!;
}
