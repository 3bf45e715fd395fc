import { createHmac, randomUUID } from 'node:crypto';
import type { SourceKind } from '../../domain/index.js';
import { LineEmulator } from './line-emulator.js';

export interface EmulatedTextMessage {
  readonly chat: { readonly kind: SourceKind; readonly name: string };
  readonly userName: string;
  readonly text: string;
}

/** The signature LINE puts in `x-line-signature`: base64 HMAC-SHA256 of the body. */
export function signBody(body: string, channelSecret: string): string {
  return createHmac('sha256', channelSecret).update(body).digest('base64');
}

/** A webhook `message` event as LINE sends it for a text typed in the emulator. */
export function textMessageEvent(emulator: LineEmulator, message: EmulatedTextMessage, now: number) {
  const userId = LineEmulator.idFor('user', message.userName);
  const chatId =
    message.chat.kind === 'user' ? userId : LineEmulator.idFor(message.chat.kind, message.chat.name);
  const source =
    message.chat.kind === 'user'
      ? { type: 'user', userId }
      : message.chat.kind === 'group'
        ? { type: 'group', groupId: chatId, userId }
        : { type: 'room', roomId: chatId, userId };
  const messageId = emulator.nextMessageId();
  const quoteToken = emulator.issueQuoteToken(messageId);
  const event = {
    type: 'message',
    mode: 'active',
    timestamp: now,
    source,
    webhookEventId: ulidLike(now),
    deliveryContext: { isRedelivery: false },
    replyToken: emulator.issueReplyToken(chatId),
    message: { type: 'text', id: messageId, quoteToken, text: message.text },
  };
  return { event, chatId, messageId, quoteToken };
}

/** Signs and posts a webhook body to the bot over real HTTP; returns LINE's view of the answer. */
export async function postWebhook(
  webhookUrl: string,
  channelSecret: string,
  destination: string,
  events: unknown[],
) {
  const body = JSON.stringify({ destination, events });
  const response = await fetch(webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-line-signature': signBody(body, channelSecret) },
    body,
  });
  return { status: response.status, body: await response.text() };
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
  const random = [...randomUUID().replace(/-/g, '')]
    .slice(0, 16)
    .map((char) => alphabet[parseInt(char, 16) * 2 + (Math.random() < 0.5 ? 0 : 1)]!)
    .join('');
  return time + random;
}
