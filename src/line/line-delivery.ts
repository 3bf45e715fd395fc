import { HTTPFetchError, messagingApi } from '@line/bot-sdk';
import { defaults } from '../defaults/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { DeliveryPort, DeliveryReceipt, DeliveryRequest } from '../machines/index.js';
import { backoffDelay, sleep, type BackoffPolicy } from '../timing/index.js';
import type { LineTransport } from './line-transport.js';
import { retryKeyFor } from './retry-key.js';
import { splitForLine } from './split-text.js';

export interface LineDeliveryOptions {
  /** A client whose calls go through `transport` (`createMessagingApiClient`). */
  readonly client: messagingApi.MessagingApiClient;
  /** Gives each call the turn's abort signal. */
  readonly transport: LineTransport;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A reply token is used only while younger than this (ms from the event's timestamp). */
  readonly replyTokenTtlMs?: number;
  /** Attempts for 429 and 5xx answers, the first included. */
  readonly maxAttempts?: number;
  readonly backoff?: BackoffPolicy;
}

/**
 * Delivers a turn's text through LINE: the reply API while the event's reply token is fresh
 * and unused, otherwise — or when LINE refuses the token — a push carrying a retry key
 * derived from the turn, so a repeated push is delivered once.
 */
export class LineDelivery implements DeliveryPort {
  private readonly replyTokenTtlMs: number;
  private readonly maxAttempts: number;
  private readonly backoff: BackoffPolicy;
  /** Pushes refused because the channel's monthly message quota is used up. */
  monthlyQuotaRefusals = 0;

  constructor(private readonly options: LineDeliveryOptions) {
    this.replyTokenTtlMs = options.replyTokenTtlMs ?? defaults.line.replyTokenTtlMs;
    this.maxAttempts = options.maxAttempts ?? defaults.line.deliveryAttempts;
    this.backoff = options.backoff ?? defaults.line.deliveryBackoff;
  }

  async deliver(request: DeliveryRequest, signal: AbortSignal): Promise<DeliveryReceipt> {
    const messages = this.toMessages(request);
    const logger = this.options.logger.child({
      sourceId: request.source.id,
      turnId: request.turnId,
      index: request.index,
    });

    if (request.replyToken && this.tokenIsFresh(request.replyTokenIssuedAt)) {
      let attempts = 0;
      try {
        await this.withRetries(
          () => {
            attempts++;
            return this.options.client.replyMessage({ replyToken: request.replyToken!, messages });
          },
          signal,
          // A spent or expired token is an answer handled below, not a failure.
          [400],
        );
        logger.info('reply sent', { method: 'reply', messages: messages.length });
        return { method: 'reply' };
      } catch (error) {
        if (!isRejectedReplyToken(error)) throw error;
        // A fresh token LINE refuses was used. By whom decides: on the first attempt of the
        // host that wrote this delivery's intent, not by us — it expired early, push. On a
        // retry (LINE took the first try and answered 5xx) or a resumed delivery (a host before
        // us may have sent it), by this very reply: delivered, record it, never push it again.
        if (request.resumed || attempts > 1) {
          logger.info('reply token already used: the reply was delivered', {
            requestId: requestIdOf(error),
            resumed: request.resumed === true,
            attempts,
          });
          return { method: 'reply' };
        }
        logger.warn('reply token rejected; pushing instead', { requestId: requestIdOf(error) });
      }
    }

    const retryKey = retryKeyFor(request.turnId, request.index);
    try {
      await this.withRetries(
        () => this.options.client.pushMessage({ to: request.source.id, messages }, retryKey),
        signal,
        [409],
      );
    } catch (error) {
      if (isMonthlyQuota(error)) {
        this.monthlyQuotaRefusals++;
        logger.error('LINE monthly message quota reached: push refused, not retried', {
          requestId: requestIdOf(error),
          refusals: this.monthlyQuotaRefusals,
        });
      }
      // 409: a push with this retry key was accepted before — the message is already there.
      if (!(error instanceof HTTPFetchError && error.status === 409)) throw error;
      logger.info('push already delivered (409 for its retry key)', { retryKey });
      return { method: 'push' };
    }
    logger.info('reply sent', { method: 'push', messages: messages.length, retryKey });
    return { method: 'push' };
  }

  private toMessages(request: DeliveryRequest): messagingApi.TextMessage[] {
    return splitForLine(request.texts).map((text, index) => ({
      type: 'text',
      text,
      // Quote the user's message on the first bubble, so a group sees who is answered.
      ...(index === 0 && request.quoteToken && { quoteToken: request.quoteToken }),
    }));
  }

  private tokenIsFresh(issuedAt: number | undefined): boolean {
    return issuedAt !== undefined && this.options.clock.now() - issuedAt < this.replyTokenTtlMs;
  }

  /**
   * Retries 429 (except the monthly quota) and 5xx with jittered backoff. Each attempt carries
   * the turn's signal; `expectedStatuses` are answers the caller handles (logged at debug). A
   * cancelled delivery (its source was lost, the process stops) never sends: the signal is
   * checked right before every request.
   */
  private async withRetries<T>(
    call: () => Promise<T>,
    signal: AbortSignal,
    expectedStatuses: readonly number[],
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      signal.throwIfAborted();
      try {
        return await this.options.transport.within({ signal, expectedStatuses }, call);
      } catch (error) {
        if (attempt >= this.maxAttempts || !isRetryable(error) || signal.aborted) throw error;
        const delay = backoffDelay(attempt, this.backoff);
        this.options.logger.warn('LINE call failed; retrying', {
          status: (error as HTTPFetchError).status,
          requestId: requestIdOf(error),
          attempt,
          retryInMs: delay,
        });
        await sleep(delay, signal);
      }
    }
  }
}

function isRetryable(error: unknown): boolean {
  if (!(error instanceof HTTPFetchError)) return false;
  if (error.status === 429) return !isMonthlyQuota(error);
  return error.status >= 500;
}

/** LINE answers 429 "You have reached your monthly limit." when the push quota is used up: retrying cannot help. */
export function isMonthlyQuota(error: unknown): boolean {
  return error instanceof HTTPFetchError && error.status === 429 && /monthly limit/i.test(String(error.body));
}

function isRejectedReplyToken(error: unknown): boolean {
  return error instanceof HTTPFetchError && error.status === 400 && /reply token/i.test(String(error.body));
}

function requestIdOf(error: unknown): string | undefined {
  return error instanceof HTTPFetchError ? (error.headers.get('x-line-request-id') ?? undefined) : undefined;
}
