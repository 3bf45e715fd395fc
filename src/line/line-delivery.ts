import type { messagingApi } from '@line/bot-sdk';
import { defaults } from '../defaults/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { DeliveryPort, DeliveryReceipt, DeliveryRequest } from '../machines/index.js';
import { backoffDelay, sleep, type BackoffPolicy } from '../timing/index.js';
import { callOutcomeOf, requestIdsOf } from './call-outcome.js';
import { decideDelivery, type DeliverySituation } from './delivery-policy.js';
import { retryKeyFor } from './retry-key.js';
import { scopedClient } from './sdk-http-client.js';
import { splitForLine } from './split-text.js';

/** LINE honours an `X-Line-Retry-Key` for 24 hours after the request that carried it. */
export const RETRY_KEY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface LineDeliveryOptions {
  /**
   * A client whose calls go through the LINE transport (`createMessagingApiClient`): each call
   * gets the turn's abort signal and the transport's timeout.
   */
  readonly client: messagingApi.MessagingApiClient;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A reply token is used only while younger than this (ms from the event's timestamp). */
  readonly replyTokenTtlMs?: number;
  /** Push attempts for 429, 5xx, timeouts and network errors, the first included. */
  readonly maxAttempts?: number;
  readonly backoff?: BackoffPolicy;
  /** The wait before each retry of a monthly-limit 429 (ms); 3 of them span 10 minutes. */
  readonly monthlyLimitRetryMs?: number;
}

/**
 * Delivers a turn's recorded texts through LINE, by the one policy of `delivery-policy.ts`
 * (docs/line.md, "Delivery policy"): this class only makes the calls, classifies their answers
 * and does what the policy's row says.
 */
export class LineDelivery implements DeliveryPort {
  private readonly replyTokenTtlMs: number;
  private readonly maxAttempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly monthlyLimitRetryMs: number;
  /** Pushes that failed for good on the channel's monthly message limit. */
  monthlyQuotaRefusals = 0;

  constructor(private readonly options: LineDeliveryOptions) {
    this.replyTokenTtlMs = options.replyTokenTtlMs ?? defaults.line.replyTokenTtlMs;
    this.maxAttempts = options.maxAttempts ?? defaults.line.deliveryAttempts;
    this.backoff = options.backoff ?? defaults.line.deliveryBackoff;
    this.monthlyLimitRetryMs = options.monthlyLimitRetryMs ?? defaults.line.monthlyLimitRetryMs;
  }

  async deliver(request: DeliveryRequest, signal: AbortSignal): Promise<DeliveryReceipt> {
    const messages = this.toMessages(request);
    // Only a push carries it: most turns end with a reply and never need one.
    let retryKey: string | undefined;
    const pushRetryKey = () => (retryKey ??= retryKeyFor(request.turnId, request.index));
    const logger = this.options.logger.child({
      sourceId: request.source.id,
      turnId: request.turnId,
      index: request.index,
    });
    const now = this.options.clock.now();
    let situation: DeliverySituation = {
      step: 'start',
      tokenFresh:
        request.replyToken !== undefined &&
        request.replyTokenIssuedAt !== undefined &&
        now - request.replyTokenIssuedAt < this.replyTokenTtlMs,
      mayHaveBeenSent: request.resumed === true || (request.attempt ?? 1) > 1,
      replyRetried: false,
      attemptsLeft: true,
      monthlyRetries: 0,
      retryKeyExpired:
        request.turnStartedAt !== undefined && now - request.turnStartedAt >= RETRY_KEY_WINDOW_MS,
    };
    let pushAttempts = 0;
    let lastError: unknown;
    // LINE's ids of the messages that went out, when its answer said (a quote of them names them).
    let sentIds: readonly string[] | undefined;
    for (;;) {
      const row = decideDelivery(situation);
      const { action } = row;
      if (situation.step !== 'start') {
        logger.debug('LINE delivery decision', {
          row: row.id,
          outcome: situation.outcome,
          ...requestIdsOf(lastError),
        });
      }
      switch (action.kind) {
        case 'delivered': {
          const method = situation.step === 'push' ? 'push' : 'reply';
          const ids = requestIdsOf(lastError);
          logger.info('reply sent', { method, messages: messages.length, row: row.id, ...ids });
          return { method, ...(sentIds && { sentMessageIds: sentIds }) };
        }
        case 'fail': {
          if (action.monthlyLimit) {
            this.monthlyQuotaRefusals++;
            logger.error('LINE monthly message limit: push given up after its retries', {
              ...requestIdsOf(lastError),
              retries: situation.monthlyRetries,
              refusals: this.monthlyQuotaRefusals,
            });
          }
          throw lastError instanceof Error
            ? lastError
            : new Error('LINE delivery failed', { cause: lastError });
        }
        case 'reply':
        case 'retry-reply': {
          if (action.kind === 'retry-reply') await sleep(backoffDelay(1, this.backoff), signal);
          lastError = await this.attempt(signal, [400], async (client) => {
            sentIds = sentMessageIdsOf(
              await client.replyMessage({ replyToken: request.replyToken!, messages }),
              messages.length,
            );
          });
          const outcome = callOutcomeOf(lastError, signal);
          situation = {
            ...situation,
            step: 'reply',
            outcome,
            replyRetried: situation.replyRetried || action.kind === 'retry-reply',
            mayHaveBeenSent: situation.mayHaveBeenSent || outcome === 'ambiguous',
          };
          continue;
        }
        case 'push':
        case 'retry-push': {
          if (action.kind === 'push' && action.unprotected) {
            logger.warn('resuming a delivery past the retry-key window: LINE may show it twice', {
              retryKey: pushRetryKey(),
            });
          }
          if (action.kind === 'retry-push') {
            const monthly = action.wait === 'monthly-limit';
            const delay = monthly ? this.monthlyLimitRetryMs : backoffDelay(pushAttempts, this.backoff);
            logger.warn('LINE push failed; retrying with the same retry key', {
              outcome: situation.outcome,
              ...requestIdsOf(lastError),
              attempt: pushAttempts,
              retryInMs: delay,
            });
            await sleep(delay, signal);
          }
          pushAttempts++;
          lastError = await this.attempt(signal, [409], async (client) => {
            sentIds = sentMessageIdsOf(
              await client.pushMessage({ to: request.source.id, messages }, pushRetryKey()),
              messages.length,
            );
          });
          const outcome = callOutcomeOf(lastError, signal);
          situation = {
            ...situation,
            step: 'push',
            outcome,
            attemptsLeft: pushAttempts < this.maxAttempts,
            monthlyRetries:
              situation.monthlyRetries +
              (action.kind === 'retry-push' && action.wait === 'monthly-limit' ? 1 : 0),
          };
          continue;
        }
      }
    }
  }

  /**
   * One call under the turn's signal; resolves with its error, `undefined` when it succeeded. A
   * cancelled delivery never sends: the signal is checked right before the request.
   */
  private async attempt(
    signal: AbortSignal,
    expectedStatuses: readonly number[],
    call: (client: messagingApi.MessagingApiClient) => Promise<unknown>,
  ): Promise<unknown> {
    signal.throwIfAborted();
    try {
      await call(scopedClient(this.options.client, { signal, expectedStatuses }));
      return undefined;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      return error ?? new Error('LINE call failed');
    }
  }

  private toMessages(request: DeliveryRequest): messagingApi.TextMessage[] {
    return splitForLine(request.texts).map((text, index) => ({
      type: 'text',
      text,
      // Quote the user's message on the first bubble, so a group sees who is answered.
      ...(index === 0 && request.quoteToken && { quoteToken: request.quoteToken }),
    }));
  }
}

/**
 * The ids in a reply's or push's answer, `{ sentMessages: [{ id }] }`: one per message sent, and
 * only plain ids (LINE's are digits), as they go into history; undefined when it has none.
 */
function sentMessageIdsOf(
  answer: { sentMessages?: unknown } | undefined,
  sent: number,
): string[] | undefined {
  const listed: unknown = answer?.sentMessages;
  const sentMessages: readonly unknown[] = Array.isArray(listed) ? listed.slice(0, sent) : [];
  const ids = sentMessages.flatMap((message) => {
    const id = typeof message === 'object' && message !== null && 'id' in message ? message.id : undefined;
    return typeof id === 'string' && PLAIN_ID.test(id) ? [id] : [];
  });
  return ids.length > 0 ? ids : undefined;
}

const PLAIN_ID = /^[\w-]{1,64}$/;
