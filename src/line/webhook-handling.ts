import { validateSignature } from '@line/bot-sdk';
import type { InboxItem } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import { toInboxItems, type GroupAnswerPolicy } from './webhook-events.js';

/**
 * The largest webhook body accepted, in bytes, on every path (express and Lambda): LINE's
 * bodies are small, and SPEC refuses anything over 1 MiB with 413.
 */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

export interface WebhookRequest {
  /** The body exactly as sent: the signature covers these bytes. */
  readonly rawBody: Buffer;
  /** The `x-line-signature` header. */
  readonly signature: string | undefined;
}

export interface WebhookResponse {
  readonly status: 200 | 400 | 401 | 413 | 500;
  readonly body: { readonly message?: string };
}

export interface WebhookHandlingOptions {
  readonly channelSecret: string;
  /** Durably accepts the messages (claim + inbox); the turns run after the answer. */
  readonly accept: (items: InboxItem[]) => Promise<{ accepted: number; duplicates: number }>;
  readonly groupPolicy: GroupAnswerPolicy;
  readonly logger: Logger;
}

/** The answer to a body over {@link MAX_WEBHOOK_BYTES}. */
export const BODY_TOO_LARGE = {
  status: 413,
  body: { message: `webhook body over ${MAX_WEBHOOK_BYTES} bytes` },
} as const satisfies WebhookResponse;

/**
 * `POST /webhook` without a framework, shared by the express router and the Lambda handler:
 * 401 without a valid `x-line-signature` (HMAC-SHA256 of the raw body, compared in constant
 * time), 413 over 1 MiB, 400 for malformed JSON, 500 when the events could not be stored
 * (LINE redelivers), otherwise 200 once they are durable.
 */
export async function handleWebhook(
  request: WebhookRequest,
  options: WebhookHandlingOptions,
): Promise<WebhookResponse> {
  if (!request.signature) return { status: 401, body: { message: 'missing x-line-signature' } };
  if (request.rawBody.length > MAX_WEBHOOK_BYTES) {
    return BODY_TOO_LARGE;
  }
  if (!validateSignature(request.rawBody, options.channelSecret, request.signature)) {
    options.logger.warn('webhook signature rejected', { bytes: request.rawBody.length });
    return { status: 401, body: { message: 'invalid x-line-signature' } };
  }
  let events: unknown[];
  try {
    const parsed = JSON.parse(request.rawBody.toString('utf8')) as { events?: unknown };
    if (!Array.isArray(parsed.events)) throw new Error('events is not an array');
    events = parsed.events;
  } catch (error) {
    return { status: 400, body: { message: `malformed webhook body: ${(error as Error).message}` } };
  }
  const messages = toInboxItems(events, options.groupPolicy, options.logger);
  try {
    const result = messages.length > 0 ? await options.accept(messages) : { accepted: 0, duplicates: 0 };
    options.logger.info('webhook accepted', { events: events.length, ...result });
  } catch (error) {
    options.logger.error('webhook events could not be stored; LINE will redeliver', {
      error,
      events: events.length,
    });
    return { status: 500, body: { message: 'could not store the events' } };
  }
  return { status: 200, body: {} };
}
