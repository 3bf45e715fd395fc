import { createHash, randomUUID } from 'node:crypto';
import type { Clock, SourceKind } from '../../domain/index.js';
import { FaultInjector } from './fault-injector.js';
import { RetryKeyLedger } from './retry-key-ledger.js';

/** One line of the emulator's transcript, as the chat page shows it. */
export interface TranscriptEntry {
  readonly id: string;
  readonly chatId: string;
  /** `loading`: the bot showed LINE's loading animation in this chat. */
  readonly from: 'user' | 'bot' | 'system' | 'loading';
  readonly time: number;
  readonly text: string;
  /** For user messages: who wrote it. */
  readonly userName?: string;
  /** For bot messages: how it was delivered. */
  readonly via?: 'reply' | 'push';
  /** A bot message quoting this user message's quote token. */
  readonly quotedId?: string;
  /** The message's own quote token (user messages). */
  readonly quoteToken?: string;
  /** A sticker, image or location the user sent, for the page to draw. */
  readonly media?: { readonly type: 'sticker' | 'image' | 'location'; readonly url?: string };
  /** For `loading`: how long the animation lasts. */
  readonly seconds?: number;
  /** A LINE API request that broke LINE's schema or rules: shown loudly. */
  readonly violation?: boolean;
}

export interface EmulatedChat {
  readonly kind: SourceKind;
  /** The LINE id of the source: U… for a user, C… for a group, R… for a room. */
  readonly id: string;
}

interface IssuedToken {
  readonly chatId: string;
  readonly issuedAt: number;
  used: boolean;
}

export type LineApiAnswer = {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
};

/** The bot's server holds the next webhooks this long before handling them (a slow bot). */
interface WebhookHold {
  readonly delayMs: number;
  remaining: number;
}

/**
 * The LINE platform, played locally: issues reply tokens (single-use, expiring), accepts
 * replies and pushes like the Messaging API does, and keeps a transcript for the chat page.
 */
export class LineEmulator {
  /** LINE's reply tokens expire; the documented window is about a minute. */
  static readonly REPLY_TOKEN_LIFETIME_MS = 60_000;
  readonly channelSecret = randomUUID().replace(/-/g, '');
  readonly channelAccessToken = `emulator-${randomUUID()}`;
  readonly botUserId = `U${hex('kaiwa-bot')}`;
  private readonly transcript: TranscriptEntry[] = [];
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly quoteTokens = new Map<string, string>();
  private readonly retryKeys: RetryKeyLedger;
  /** Chats whose last event came in `standby` mode: the bot must not send there. */
  private readonly standbyChats = new Set<string>();
  private webhookHold: WebhookHold | undefined;
  /** Faults the LINE API plays on the bot's next calls (page and `/emulator/api/faults`). */
  readonly faults = new FaultInjector();
  private readonly listeners = new Set<(entry: TranscriptEntry) => void>();
  private readonly users = new Map<string, string>();
  private readonly chats = new Map<string, { kind: SourceKind; title: string; members: Set<string> }>();
  private readonly contents = new Map<string, { mimeType: string; data: Buffer }>();
  private sequence = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxTranscript = 2000,
  ) {
    this.retryKeys = new RetryKeyLedger(clock);
  }

  /** A stable LINE-shaped id for a user, group or room name. */
  static idFor(kind: SourceKind, name: string): string {
    return `${kind === 'user' ? 'U' : kind === 'group' ? 'C' : 'R'}${hex(`${kind}:${name}`)}`;
  }

  /** Makes a user known to LINE (its profile) and, for a group or room, a member of it. */
  registerSpeaker(
    userName: string,
    chat?: { kind: SourceKind; name: string },
  ): { userId: string; chatId: string } {
    const userId = LineEmulator.idFor('user', userName);
    this.users.set(userId, userName);
    if (!chat || chat.kind === 'user') return { userId, chatId: userId };
    const chatId = LineEmulator.idFor(chat.kind, chat.name);
    const known = this.chats.get(chatId) ?? { kind: chat.kind, title: chat.name, members: new Set<string>() };
    known.members.add(userId);
    this.chats.set(chatId, known);
    return { userId, chatId };
  }

  /** Keeps uploaded media for the content API (`/v2/bot/message/{id}/content`). */
  storeContent(messageId: string, mimeType: string, data: Buffer): void {
    this.contents.set(messageId, { mimeType, data });
  }

  content(messageId: string): { mimeType: string; data: Buffer } | undefined {
    return this.contents.get(messageId);
  }

  /** `GET /v2/bot/profile/{userId}`; in a group or room, only its members have a profile there. */
  profile(userId: string, chatId?: string): LineApiAnswer {
    const displayName = this.users.get(userId);
    const inChat = chatId === undefined || this.chats.get(chatId)?.members.has(userId);
    if (!displayName || !inChat) return { status: 404, body: { message: 'Not found' } };
    return { status: 200, body: { userId, displayName, language: 'en' } };
  }

  groupSummary(groupId: string): LineApiAnswer {
    const chat = this.chats.get(groupId);
    if (!chat || chat.kind !== 'group') return { status: 404, body: { message: 'Not found' } };
    return { status: 200, body: { groupId, groupName: chat.title } };
  }

  memberCount(chatId: string): LineApiAnswer {
    const chat = this.chats.get(chatId);
    if (!chat) return { status: 404, body: { message: 'Not found' } };
    // "The number returned excludes the LINE Official Account" (messaging-api.yml, GroupMemberCountResponse).
    return { status: 200, body: { count: chat.members.size } };
  }

  /** `POST /v2/bot/chat/loading/start`: 1:1 chats only, as on LINE. */
  startLoading(body: { chatId: string; loadingSeconds?: number }): LineApiAnswer {
    if (!body.chatId.startsWith('U')) {
      return {
        status: 400,
        body: { message: 'The loading animation can only be shown in one-on-one chats' },
      };
    }
    this.flagStandby(body.chatId, 'showed the loading animation');
    this.record({
      id: `l${this.nextMessageId()}`,
      chatId: body.chatId,
      from: 'loading',
      time: this.clock.now(),
      text: 'kaiwa is thinking…',
      seconds: body.loadingSeconds ?? 20,
    });
    return { status: 202, body: {} };
  }

  nextMessageId(): string {
    this.sequence++;
    return String(this.clock.now() * 1000 + (this.sequence % 1000));
  }

  /** The chat a reply token was issued for, to show a refused reply in the right place. */
  chatOfReplyToken(replyToken: unknown): string | undefined {
    return typeof replyToken === 'string' ? this.tokens.get(replyToken)?.chatId : undefined;
  }

  issueReplyToken(chatId: string): string {
    const token = randomUUID().replace(/-/g, '');
    this.tokens.set(token, { chatId, issuedAt: this.clock.now(), used: false });
    return token;
  }

  issueQuoteToken(entryId: string): string {
    const token = `q${randomUUID().replace(/-/g, '')}`;
    this.quoteTokens.set(token, entryId);
    return token;
  }

  recordUserMessage(
    chatId: string,
    userName: string,
    message: Pick<TranscriptEntry, 'id' | 'text' | 'quoteToken' | 'quotedId' | 'media'>,
  ): TranscriptEntry {
    return this.record({ ...message, chatId, from: 'user', time: this.clock.now(), userName });
  }

  /** Whether `messageId` is a message of this chat, which a reply may quote. */
  hasMessage(chatId: string, messageId: string): boolean {
    return this.entries().some((entry) => entry.chatId === chatId && entry.id === messageId);
  }

  /** `POST /v2/bot/message/reply`, with LINE's rules: the token exists, is unused and young. */
  reply(body: {
    replyToken: string;
    messages: { type: string; text?: string; quoteToken?: string }[];
  }): LineApiAnswer {
    const token = this.tokens.get(body.replyToken);
    if (!token || token.used || this.clock.now() - token.issuedAt > LineEmulator.REPLY_TOKEN_LIFETIME_MS) {
      return { status: 400, body: { message: 'Invalid reply token' } };
    }
    token.used = true;
    return { status: 200, body: { sentMessages: this.deliver(token.chatId, 'reply', body.messages) } };
  }

  /**
   * `POST /v2/bot/message/push`. A retry key LINE accepted in the last 24 hours answers 409 with
   * the accepted request's id in `x-line-accepted-request-id` and its `sentMessages`, and sends
   * nothing; the router has already refused a key that is not a UUID.
   */
  push(
    body: { to: string; messages: { type: string; text?: string; quoteToken?: string }[] },
    retryKey: string | undefined,
    requestId: string,
  ): LineApiAnswer {
    const accepted = retryKey === undefined ? undefined : this.retryKeys.find(retryKey);
    if (accepted) {
      return {
        status: 409,
        body: { message: 'The retry key is already accepted', sentMessages: [...accepted.sentMessages] },
        headers: { 'x-line-accepted-request-id': accepted.requestId },
      };
    }
    const sentMessages = this.deliver(body.to, 'push', body.messages);
    if (retryKey !== undefined) this.retryKeys.accept(retryKey, { requestId, sentMessages });
    return { status: 200, body: { sentMessages } };
  }

  /** Remembers the mode of the chat's last event: in `standby` the bot must stay silent. */
  setChatMode(chatId: string, mode: 'active' | 'standby'): void {
    if (mode === 'standby') this.standbyChats.add(chatId);
    else this.standbyChats.delete(chatId);
  }

  isStandby(chatId: string): boolean {
    return this.standbyChats.has(chatId);
  }

  /** Makes the bot's server hold its next `times` webhooks `delayMs` before handling them. */
  holdWebhooks(delayMs: number, times: number): void {
    this.webhookHold = times > 0 && delayMs > 0 ? { delayMs, remaining: times } : undefined;
  }

  /** The delay for the webhook arriving now, if the bot is to answer it slowly. */
  takeWebhookDelay(): number | undefined {
    const hold = this.webhookHold;
    if (!hold) return undefined;
    hold.remaining--;
    if (hold.remaining <= 0) this.webhookHold = undefined;
    return hold.delayMs;
  }

  /** The slow-webhook setting still waiting for webhooks. */
  pendingWebhookHold(): { delayMs: number; remaining: number } | undefined {
    return this.webhookHold && { ...this.webhookHold };
  }

  /** Shows a request that LINE would have refused, in the transcript of the chat it targets. */
  recordViolation(chatId: string, text: string): void {
    this.record({
      id: `v${this.nextMessageId()}`,
      chatId,
      from: 'system',
      time: this.clock.now(),
      text,
      violation: true,
    });
  }

  entries(): readonly TranscriptEntry[] {
    return this.transcript;
  }

  subscribe(listener: (entry: TranscriptEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private deliver(
    chatId: string,
    via: 'reply' | 'push',
    messages: { type: string; text?: string; quoteToken?: string }[],
  ): { id: string; quoteToken: string }[] {
    this.flagStandby(chatId, `sent a ${via}`);
    return messages.map((message) => {
      const id = this.nextMessageId();
      const quotedId = message.quoteToken ? this.quoteTokens.get(message.quoteToken) : undefined;
      this.record({
        id,
        chatId,
        from: 'bot',
        via,
        time: this.clock.now(),
        text: message.type === 'text' ? (message.text ?? '') : `[${message.type} message]`,
        ...(quotedId && { quotedId }),
      });
      return { id, quoteToken: this.issueQuoteToken(id) };
    });
  }

  /** LINE: in `standby` mode "the bot server that received this webhook event shouldn't send any messages". */
  private flagStandby(chatId: string, what: string): void {
    if (this.standbyChats.has(chatId)) {
      this.recordViolation(chatId, `the bot ${what} in a chat whose last event came in standby mode`);
    }
  }

  private record(entry: TranscriptEntry): TranscriptEntry {
    this.transcript.push(entry);
    if (this.transcript.length > this.maxTranscript)
      this.transcript.splice(0, this.transcript.length - this.maxTranscript);
    for (const listener of this.listeners) listener(entry);
    return entry;
  }
}

function hex(seed: string): string {
  return createHash('md5').update(seed).digest('hex');
}
