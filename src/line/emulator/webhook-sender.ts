import { createHmac, randomUUID } from 'node:crypto';
import type { SourceKind } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import type { LineEmulator, TranscriptEntry } from './line-emulator.js';

/** What a person can do in the emulator's chat page. */
export type EmulatedAction =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'sticker';
      readonly packageId: string;
      readonly stickerId: string;
      readonly keywords?: string[];
    }
  | { readonly type: 'image'; readonly mimeType: string; readonly data: Buffer }
  | {
      readonly type: 'location';
      readonly title: string;
      readonly address: string;
      readonly latitude: number;
      readonly longitude: number;
    }
  | { readonly type: 'follow' | 'unfollow' | 'join' | 'leave' | 'memberJoined' | 'memberLeft' }
  | { readonly type: 'unsend'; readonly messageId: string };

export interface EmulatedRequest {
  readonly chat: { readonly kind: SourceKind; readonly name: string };
  readonly userName: string;
  readonly action: EmulatedAction;
  /** The channel's state: `standby` events must not be answered (default `active`). */
  readonly mode?: 'active' | 'standby';
}

/** The signature LINE puts in `x-line-signature`: base64 HMAC-SHA256 of the body. */
export function signBody(body: string, channelSecret: string): string {
  return createHmac('sha256', channelSecret).update(body).digest('base64');
}

/** What the emulator shows for the event, if it is a message the user wrote. */
export interface BuiltEvent {
  readonly event: Record<string, unknown>;
  readonly chatId: string;
  readonly transcript?: {
    readonly id: string;
    readonly text: string;
    readonly quoteToken?: string;
    readonly media?: TranscriptEntry['media'];
  };
}

/** A webhook event as LINE sends it for what the person did in the emulator. */
export function buildEvent(emulator: LineEmulator, request: EmulatedRequest, now: number): BuiltEvent {
  const { userId, chatId } = emulator.registerSpeaker(request.userName, request.chat);
  const kind = request.chat.kind;
  const source =
    kind === 'user'
      ? { type: 'user', userId }
      : kind === 'group'
        ? { type: 'group', groupId: chatId, userId }
        : { type: 'room', roomId: chatId, userId };
  const chatSource = kind === 'group' ? { type: 'group', groupId: chatId } : { type: 'room', roomId: chatId };
  const base = {
    mode: request.mode ?? 'active',
    timestamp: now,
    webhookEventId: ulidLike(now),
    deliveryContext: { isRedelivery: false },
  };
  const replyToken = () => emulator.issueReplyToken(chatId);
  const { action } = request;

  if (action.type === 'follow' || action.type === 'unfollow') {
    const event =
      action.type === 'follow'
        ? {
            ...base,
            type: 'follow',
            source: { type: 'user', userId },
            replyToken: replyToken(),
            follow: { isUnblocked: false },
          }
        : { ...base, type: 'unfollow', source: { type: 'user', userId } };
    return { event, chatId };
  }
  if (action.type === 'join')
    return { event: { ...base, type: 'join', source: chatSource, replyToken: replyToken() }, chatId };
  if (action.type === 'leave') return { event: { ...base, type: 'leave', source: chatSource }, chatId };
  if (action.type === 'memberJoined') {
    const joined = { members: [{ type: 'user', userId }] };
    return {
      event: { ...base, type: 'memberJoined', source: chatSource, replyToken: replyToken(), joined },
      chatId,
    };
  }
  if (action.type === 'memberLeft') {
    return {
      event: {
        ...base,
        type: 'memberLeft',
        source: chatSource,
        left: { members: [{ type: 'user', userId }] },
      },
      chatId,
    };
  }
  if (action.type === 'unsend') {
    return { event: { ...base, type: 'unsend', source, unsend: { messageId: action.messageId } }, chatId };
  }

  const id = emulator.nextMessageId();
  const quoteToken =
    action.type === 'text' || action.type === 'sticker' || action.type === 'image'
      ? emulator.issueQuoteToken(id)
      : undefined;
  let message: Record<string, unknown>;
  let transcript: BuiltEvent['transcript'];
  switch (action.type) {
    case 'text':
      message = { type: 'text', id, quoteToken, text: action.text };
      transcript = { id, text: action.text, ...(quoteToken && { quoteToken }) };
      break;
    case 'sticker':
      message = {
        type: 'sticker',
        id,
        quoteToken,
        packageId: action.packageId,
        stickerId: action.stickerId,
        stickerResourceType: 'STATIC',
        ...(action.keywords && { keywords: action.keywords }),
      };
      transcript = {
        id,
        text: `[sticker${action.keywords ? `: ${action.keywords.join(', ')}` : ''}]`,
        media: { type: 'sticker' },
      };
      break;
    case 'image':
      emulator.storeContent(id, action.mimeType, action.data);
      message = { type: 'image', id, quoteToken, contentProvider: { type: 'line' } };
      transcript = { id, text: '[image]', media: { type: 'image', url: `/emulator/api/content/${id}` } };
      break;
    case 'location':
      message = {
        type: 'location',
        id,
        title: action.title,
        address: action.address,
        latitude: action.latitude,
        longitude: action.longitude,
      };
      transcript = { id, text: `📍 ${action.title}, ${action.address}`, media: { type: 'location' } };
      break;
  }
  return {
    event: { ...base, type: 'message', source, replyToken: replyToken(), message },
    chatId,
    transcript,
  };
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

/** Webhook event ids are ULIDs: 26 Crockford base32 characters, time first. */
function ulidLike(now: number): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let time = '';
  let rest = now;
  for (let index = 0; index < 10; index++) {
    time = alphabet[rest % 32]! + time;
    rest = Math.floor(rest / 32);
  }
  const random = [...Buffer.from(randomUUID().replace(/-/g, ''), 'hex').subarray(0, 16)]
    .map((byte) => alphabet[byte % 32]!)
    .join('');
  return time + random;
}
