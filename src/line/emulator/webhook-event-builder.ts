import { randomUUID } from 'node:crypto';
import type { SourceKind } from '../../domain/index.js';
import type { LineEmulator, TranscriptEntry } from './line-emulator.js';

/** What a person can do in the emulator's chat page. */
export type EmulatedAction =
  /** `quotedMessageId`: a reply to that earlier message of the chat (LINE's quote). */
  | { readonly type: 'text'; readonly text: string; readonly quotedMessageId?: string }
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

/** What the emulator shows for the event, if it is a message the user wrote. */
export interface BuiltEvent {
  readonly event: Record<string, unknown>;
  readonly chatId: string;
  readonly transcript?: {
    readonly id: string;
    readonly text: string;
    readonly quoteToken?: string;
    readonly quotedId?: string;
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
    case 'text': {
      // A quote of a message this chat never had is left out, as LINE would never send it.
      const quoted =
        action.quotedMessageId && emulator.hasMessage(chatId, action.quotedMessageId)
          ? action.quotedMessageId
          : undefined;
      message = {
        type: 'text',
        id,
        quoteToken,
        text: action.text,
        ...(quoted && { quotedMessageId: quoted }),
      };
      transcript = {
        id,
        text: action.text,
        ...(quoteToken && { quoteToken }),
        ...(quoted && { quotedId: quoted }),
      };
      break;
    }
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
