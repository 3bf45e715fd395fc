import { validateSignature, type webhook } from '@line/bot-sdk';
import { mayHoldLoneSurrogates, wellFormed, type InboxItem } from '../domain/index.js';
import { defaults } from '../defaults/index.js';
import type { Logger } from '../logging/index.js';
import { DeadlineExceededError, withDeadline } from '../timing/index.js';
import { markStale, withinReplayWindow } from './event-freshness.js';
import { toInboxItems, type GroupAnswerPolicy } from './webhook-events.js';
import { WebhookEventValidator } from './webhook-event-validator.js';

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
  /** LINE's webhook schema; defaults to the process's shared, compiled-once validator. */
  readonly validator?: WebhookEventValidator;
  /**
   * The bot's own user id (cached `getBotInfo`; the emulator's bot in emulator mode): a body whose
   * `destination` differs is acknowledged and nothing in it is processed. Undefined (not known,
   * or no way to know) leaves the body unchecked.
   */
  readonly botUserId?: () => Promise<string | undefined>;
  /** Messages older than this when accepted are stored as quiet context, never answered (ms). */
  readonly staleEventMs?: number;
  /** The clock staleness is judged on. */
  readonly now?: () => number;
  /**
   * Storing the events must be over within this (ms), or the answer is 500 and LINE redelivers;
   * the write may still land, and the claim makes the redelivery harmless. Unset: no budget.
   */
  readonly acceptDeadlineMs?: number;
  /** The same as an instant (epoch ms), for a budget that started earlier (Lambda's invocation). */
  readonly acceptDeadline?: number;
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
 * (LINE redelivers), otherwise 200 once they are durable. Each event is checked against LINE's
 * webhook schema first: an invalid one is skipped and logged, and the rest are still accepted.
 * A body for another bot is answered 200 and dropped; stale messages are stored quiet
 * (docs/security.md).
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
  let destination: unknown;
  let text: string;
  try {
    text = request.rawBody.toString('utf8');
    // V8's JSON.parse does not recurse, so any nesting parses; the per-event bounds come next.
    const parsed = JSON.parse(text) as {
      events?: unknown;
      destination?: unknown;
    } | null;
    if (!Array.isArray(parsed?.events)) {
      return { status: 400, body: { message: 'malformed webhook body: events is not an array' } };
    }
    events = parsed.events;
    destination = parsed.destination;
  } catch {
    // Not the parser's message: it quotes the body.
    return { status: 400, body: { message: 'malformed webhook body: not JSON' } };
  }
  if (events.length > 0 && (await isMisdirected(destination, options))) return MISDIRECTED;
  const now = (options.now ?? Date.now)();
  const checked = validEvents(events, options.validator ?? WebhookEventValidator.shared(), options.logger);
  // Within their bounds now: half an emoji escaped in JSON becomes U+FFFD before it is stored.
  const valid = withinReplayWindow(mayHoldLoneSurrogates(text) ? checked.map(wellFormed) : checked, {
    now,
    logger: options.logger,
  });
  const { items: messages, stale } = markStale(toInboxItems(valid, options.groupPolicy, options.logger), {
    now,
    maxAgeMs: options.staleEventMs ?? defaults.line.staleEventMs,
  });
  const deadline =
    options.acceptDeadline ??
    (options.acceptDeadlineMs !== undefined ? Date.now() + options.acceptDeadlineMs : undefined);
  // A throw is a rejection like any other failure to store.
  const accepting = messages.length > 0 ? Promise.resolve(messages).then(options.accept) : undefined;
  try {
    const result = accepting
      ? await withDeadline(accepting, { ...(deadline !== undefined && { deadline }) })
      : { accepted: 0, duplicates: 0 };
    options.logger.info('webhook accepted', {
      events: events.length,
      skipped: events.length - valid.length,
      ...result,
      ...(stale > 0 && { stale }),
    });
  } catch (error) {
    if (DeadlineExceededError.isInstance(error) && accepting) {
      logLateAccept(accepting, events.length, options.logger);
    } else {
      options.logger.error('webhook events could not be stored; LINE will redeliver', {
        error,
        events: events.length,
      });
    }
    return { status: 500, body: { message: 'could not store the events' } };
  }
  return { status: 200, body: {} };
}

/**
 * The write goes on after the deadline's 500: whether it landed decides whether LINE's
 * redelivery is a duplicate or the only copy, so the outcome is logged when it comes (on
 * Lambda, possibly in a later invocation of the same container).
 */
function logLateAccept(
  accepting: Promise<{ accepted: number; duplicates: number }>,
  events: number,
  logger: Logger,
) {
  logger.error('webhook events not stored within the deadline; answered 500, the write goes on', {
    events,
  });
  accepting.then(
    (result) => logger.warn('webhook events stored after their deadline', { events, ...result }),
    (error: unknown) =>
      logger.error('webhook events could not be stored; LINE will redeliver', { error, events }),
  );
}

/**
 * The events that satisfy LINE's webhook schema. An invalid one is skipped with a warning that
 * names where it breaks the schema — never its content; a type LINE added after `webhook.yml`
 * is skipped quietly (debug).
 */
function validEvents(
  events: readonly unknown[],
  validator: WebhookEventValidator,
  logger: Logger,
): webhook.Event[] {
  const valid: webhook.Event[] = [];
  for (const raw of events) {
    const verdict = validator.check(raw);
    if (verdict.kind === 'valid') {
      valid.push(verdict.event);
      continue;
    }
    const fields = { eventId: loggableId(raw, 'webhookEventId'), type: loggableId(raw, 'type') };
    if (verdict.kind === 'unknown') {
      logger.debug(`webhook event skipped: ${verdict.what} type not known`, fields);
    } else {
      logger.warn("webhook event skipped: it breaks LINE's webhook schema", {
        ...fields,
        ...verdict.problem,
      });
    }
  }
  return valid;
}

/** An id or type worth logging: short and plain. Anything else could be user content. */
function loggableId(event: unknown, property: string): string | undefined {
  const value =
    typeof event === 'object' && event !== null ? (event as Record<string, unknown>)[property] : undefined;
  return typeof value === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(value) ? value : undefined;
}

/**
 * Acknowledged with 200 but not processed: the signature is right, so LINE sent it, but for
 * another bot than this channel's access token speaks for (docs/security.md explains the 200).
 */
const MISDIRECTED = {
  status: 200,
  body: { message: 'destination is not this bot: nothing processed' },
} as const satisfies WebhookResponse;

async function isMisdirected(destination: unknown, options: WebhookHandlingOptions): Promise<boolean> {
  const expected = await options.botUserId?.();
  if (expected === undefined || destination === expected) return false;
  options.logger.warn(
    'webhook for another bot refused: nothing stored (check the channel secret and token)',
    {
      destination: typeof destination === 'string' ? destination.slice(0, 40) : typeof destination,
      botUserId: expected,
    },
  );
  return true;
}
