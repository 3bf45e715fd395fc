import { createHmac } from 'node:crypto';
import type { Logger } from '../../logging/index.js';
import type { LineEmulator } from './line-emulator.js';

/** The signature LINE puts in `x-line-signature`: base64 HMAC-SHA256 of the body. */
export function signBody(body: string, channelSecret: string): string {
  return createHmac('sha256', channelSecret).update(body).digest('base64');
}

/**
 * LINE counts a webhook as failed (`request_timeout`) when the bot has not answered within 2 s
 * ("Check webhook error causes and statistics", docs/line.md).
 */
export const LINE_WEBHOOK_TIMEOUT_MS = 2000;

/** LINE's reasons for a failed webhook, as its error statistics name them. */
export type WebhookFailure = 'could_not_connect' | 'request_timeout' | 'error_status_code';

/** LINE's view of one webhook delivery: the status (0 when none came) and why it failed. */
export interface WebhookOutcome {
  readonly status: number;
  readonly body: string;
  readonly failure?: WebhookFailure;
}

/** Signs and posts a webhook body to the bot over real HTTP, giving up after LINE's 2 s. */
export async function postWebhook(
  webhookUrl: string,
  channelSecret: string,
  body: string,
  timeoutMs = LINE_WEBHOOK_TIMEOUT_MS,
): Promise<WebhookOutcome> {
  try {
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-line-signature': signBody(body, channelSecret) },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    return response.status >= 200 && response.status < 300
      ? { status: response.status, body: text }
      : { status: response.status, body: text, failure: 'error_status_code' };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return timedOut
      ? { status: 0, body: '', failure: 'request_timeout' }
      : { status: 0, body: '', failure: 'could_not_connect' };
  }
}

/** Checks a webhook body the emulator built; returns what LINE's schema says is wrong. */
export type WebhookValidator = (body: unknown) => string[];

export interface WebhookSenderOptions {
  readonly emulator: LineEmulator;
  /** Where the bot's webhook listens. */
  readonly webhookUrl: () => string;
  readonly logger: Logger;
  readonly validateWebhook?: WebhookValidator;
  /** LINE's 2 s unless a test needs another budget. */
  readonly timeoutMs?: number;
}

/** What happened to one webhook: refused by the schema before sending, or LINE's outcome. */
export type SentWebhook =
  | { readonly sent: false; readonly problems: string[] }
  | ({ readonly sent: true; readonly webhookEventId: string } & WebhookOutcome);

/**
 * Sends the emulator's webhooks the way LINE does: signed, checked against LINE's schema, with
 * LINE's 2 s timeout, and redelivered on request with `deliveryContext.isRedelivery: true` and
 * the same `webhookEventId`, `timestamp` and reply token (LINE's timestamp is the time the event
 * happened, even when redelivered).
 */
export class WebhookSender {
  /** The events sent lately, by `webhookEventId`, for redelivery. */
  private readonly sentEvents = new Map<string, { event: Record<string, unknown>; chatId: string }>();
  private static readonly REMEMBERED = 500;

  constructor(private readonly options: WebhookSenderOptions) {}

  /**
   * Sends one event; a failure shows on the page and in the log. `beforePost` runs once the
   * body passed LINE's schema, just before it goes out (the page shows the user's message then).
   */
  async send(event: Record<string, unknown>, chatId: string, beforePost?: () => void): Promise<SentWebhook> {
    const webhookEventId = String(event.webhookEventId);
    this.sentEvents.set(webhookEventId, { event, chatId });
    if (this.sentEvents.size > WebhookSender.REMEMBERED) {
      this.sentEvents.delete(this.sentEvents.keys().next().value!);
    }
    return this.post(event, chatId, beforePost);
  }

  /** Sends an event again as LINE's redelivery does; undefined when the event is unknown. */
  async redeliver(webhookEventId: string): Promise<SentWebhook | undefined> {
    const sent = this.sentEvents.get(webhookEventId);
    if (!sent) return undefined;
    const event = { ...sent.event, deliveryContext: { isRedelivery: true } };
    return this.post(event, sent.chatId);
  }

  /** The last event sent to a chat, for the page's "redeliver" control. */
  lastEventOf(chatId: string): string | undefined {
    let last: string | undefined;
    for (const [webhookEventId, sent] of this.sentEvents) if (sent.chatId === chatId) last = webhookEventId;
    return last;
  }

  private async post(
    event: Record<string, unknown>,
    chatId: string,
    beforePost?: () => void,
  ): Promise<SentWebhook> {
    const { emulator, logger } = this.options;
    const body = JSON.stringify({ destination: emulator.botUserId, events: [event] });
    const problems = this.options.validateWebhook?.(JSON.parse(body)) ?? [];
    if (problems.length > 0) {
      // The emulator broke LINE's schema: a bug here, shown loudly rather than sent.
      logger.error("the emulator built a webhook that breaks LINE's schema", { problems });
      emulator.recordViolation(chatId, `webhook not sent, it breaks LINE's schema: ${problems.join('; ')}`);
      return { sent: false, problems };
    }
    beforePost?.();
    const outcome = await postWebhook(
      this.options.webhookUrl(),
      emulator.channelSecret,
      body,
      this.options.timeoutMs ?? LINE_WEBHOOK_TIMEOUT_MS,
    );
    const webhookEventId = String(event.webhookEventId);
    if (outcome.failure) {
      logger.warn('the bot failed a webhook', {
        webhookEventId,
        status: outcome.status,
        reason: outcome.failure,
      });
      emulator.recordViolation(
        chatId,
        outcome.failure === 'error_status_code'
          ? `webhook answered ${outcome.status}: ${outcome.body}`
          : `webhook failed: ${outcome.failure}`,
      );
    }
    return { sent: true, webhookEventId, ...outcome };
  }
}
