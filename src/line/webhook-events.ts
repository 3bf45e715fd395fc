import type { webhook } from '@line/bot-sdk';
import {
  isMessage,
  type Attachment,
  type InboundMessage,
  type InboxItem,
  type Source,
} from '../domain/index.js';
import type { Logger } from '../logging/index.js';

/** Who the bot answers in groups and rooms: everyone (the model may `skip`), or only when addressed. */
export interface GroupAnswerPolicy {
  readonly mode: 'all' | 'mention';
  /**
   * The bot is addressed when a message mentions it or contains this name — or one of these
   * names, separated by commas (`kaiwa,カイワ,かいわ`: a Japanese group writes it its own way).
   */
  readonly botName: string;
}

/** The conversation a webhook event belongs to: the user, group or room. */
export function sourceOf(source: webhook.Source | undefined): Source | undefined {
  if (source?.type === 'user' && source.userId) return { kind: 'user', id: source.userId };
  if (source?.type === 'group' && source.groupId) return { kind: 'group', id: source.groupId };
  if (source?.type === 'room' && source.roomId) return { kind: 'room', id: source.roomId };
  return undefined;
}

/**
 * Turns a webhook's events — already checked against LINE's schema (`WebhookEventValidator`) —
 * into inbox items: messages of every kind become text (media keep a reference, never bytes),
 * unsend and unfollow/leave become source events. Event types kaiwa does not handle are skipped
 * with a debug log, never an error.
 */
export function toInboxItems(
  events: readonly webhook.Event[],
  policy: GroupAnswerPolicy,
  logger: Logger,
): InboxItem[] {
  const items: InboxItem[] = [];
  for (const event of events) {
    const source = sourceOf(event.source);
    if (!source) {
      logger.debug('event without a source ignored', { type: event.type, eventId: event.webhookEventId });
      continue;
    }
    const item = toInboxItem(event, source, policy);
    if (item) items.push(event.mode === 'standby' ? inStandby(item) : item);
    else logger.debug('event type not handled', { type: event.type, eventId: event.webhookEventId });
  }
  return items;
}

/**
 * An event LINE sent while another channel holds the chat (`mode: "standby"`, module channels):
 * the bot must not send, so a message joins history as quiet context — no model call, no reply,
 * no push, no loading animation. Unsend and forget still apply: they send nothing.
 */
function inStandby(item: InboxItem): InboxItem {
  if (!isMessage(item)) return item;
  const { replyToken: _unused, ...rest } = item;
  return { ...rest, quiet: true };
}

function toInboxItem(event: webhook.Event, source: Source, policy: GroupAnswerPolicy): InboxItem | undefined {
  const base = { eventId: event.webhookEventId, source, timestamp: event.timestamp };
  const userId = (event as { source?: { userId?: string } }).source?.userId;
  const message = (text: string, extra: Partial<InboundMessage> = {}): InboundMessage => ({
    ...base,
    text,
    ...(userId && { sender: { userId } }),
    ...('replyToken' in event && typeof event.replyToken === 'string' && { replyToken: event.replyToken }),
    ...extra,
  });

  switch (event.type) {
    case 'message':
      return fromMessageContent(event.message, source, policy, message);
    case 'postback': {
      const params = event.postback.params ? ` ${JSON.stringify(event.postback.params)}` : '';
      return message(`[postback] ${event.postback.data}${params}`, { lineEvent: 'postback' });
    }
    case 'follow':
      return message(event.follow.isUnblocked ? '[unblocked the bot]' : '[added the bot as a friend]', {
        lineEvent: 'follow',
      });
    case 'join':
      return message(`[the bot was added to this ${source.kind}]`, { lineEvent: 'join' });
    case 'memberJoined': {
      const count = event.joined.members.length;
      return message(
        `[${count} ${count === 1 ? 'member' : 'members'} joined: ${memberIds(event.joined.members)}]`,
        {
          lineEvent: 'memberJoined',
        },
      );
    }
    case 'memberLeft': {
      const count = event.left.members.length;
      // Nobody can be answered (there is no reply token): a note in history only.
      return message(
        `[${count} ${count === 1 ? 'member' : 'members'} left: ${memberIds(event.left.members)}]`,
        {
          quiet: true,
          lineEvent: 'memberLeft',
        },
      );
    }
    case 'unsend':
      return { ...base, kind: 'unsend', messageId: event.unsend.messageId };
    case 'unfollow':
      return { ...base, kind: 'forget', reason: 'unfollow' };
    case 'leave':
      return { ...base, kind: 'forget', reason: 'leave' };
    default:
      return undefined;
  }
}

function fromMessageContent(
  content: webhook.MessageContent,
  source: Source,
  policy: GroupAnswerPolicy,
  message: (text: string, extra?: Partial<InboundMessage>) => InboundMessage,
): InboundMessage | undefined {
  const common: Partial<InboundMessage> = {
    messageId: content.id,
    ...('quoteToken' in content &&
      typeof content.quoteToken === 'string' && { quoteToken: content.quoteToken }),
    // A text or sticker sent as a reply to an earlier message (LINE's quote).
    ...('quotedMessageId' in content &&
      typeof content.quotedMessageId === 'string' &&
      PLAIN_MESSAGE_ID.test(content.quotedMessageId) && { quotedMessageId: content.quotedMessageId }),
  };
  const inGroup = source.kind !== 'user';
  switch (content.type) {
    case 'text': {
      const addressed =
        !inGroup ||
        policy.mode === 'all' ||
        (content.mention?.mentionees ?? []).some((mentionee) => 'isSelf' in mentionee && mentionee.isSelf) ||
        namedIn(content.text, policy.botName);
      return message(content.text, { ...common, ...(!addressed && { quiet: true }) });
    }
    case 'image': {
      const set = content.imageSet
        ? ` ${content.imageSet.index ?? '?'} of ${content.imageSet.total ?? '?'}`
        : '';
      const attachment: Attachment | undefined =
        content.contentProvider.type === 'line' ? { kind: 'image', messageId: content.id } : undefined;
      const where =
        content.contentProvider.type === 'external'
          ? ` at ${content.contentProvider.originalContentUrl}`
          : '';
      return quietInMentionGroup(
        message(`[image${set}${where}]`, { ...common, ...(attachment && { attachment }) }),
        inGroup,
        policy,
      );
    }
    case 'video':
      return quietInMentionGroup(message(`[video${duration(content.duration)}]`, common), inGroup, policy);
    case 'audio': {
      // Voice messages hosted by LINE reach the model as audio (docs/runtime.md); bytes never enter history.
      const attachment: Attachment | undefined =
        content.contentProvider.type === 'line' ? { kind: 'audio', messageId: content.id } : undefined;
      return quietInMentionGroup(
        message(`[audio${duration(content.duration)}]`, { ...common, ...(attachment && { attachment }) }),
        inGroup,
        policy,
      );
    }
    case 'file':
      return quietInMentionGroup(
        message(`[file "${content.fileName}", ${size(content.fileSize)}]`, common),
        inGroup,
        policy,
      );
    case 'location': {
      const place = [content.title, content.address].filter(Boolean).join(', ');
      const text = `[location${place ? `: ${place}` : ''} (${content.latitude}, ${content.longitude})]`;
      return quietInMentionGroup(message(text, common), inGroup, policy);
    }
    case 'sticker': {
      const described = content.keywords?.length
        ? `keywords: ${content.keywords.slice(0, 8).join(', ')}`
        : content.text
          ? `text: ${content.text}`
          : `package ${content.packageId}, sticker ${content.stickerId}`;
      return quietInMentionGroup(message(`[sticker, ${described}]`, common), inGroup, policy);
    }
    default:
      return undefined;
  }
}

/** Media, stickers and locations cannot mention the bot: under `mention`, they are context only. */
function quietInMentionGroup(
  message: InboundMessage,
  inGroup: boolean,
  policy: GroupAnswerPolicy,
): InboundMessage {
  return inGroup && policy.mode === 'mention' ? { ...message, quiet: true } : message;
}

function memberIds(members: readonly { userId?: string }[]): string {
  return members.map((member) => member.userId ?? 'unknown').join(', ');
}

function duration(milliseconds: number | undefined): string {
  return milliseconds === undefined ? '' : `, ${Math.round(milliseconds / 1000)} s`;
}

function size(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Whether `text` contains one of the bot's names (comma-separated); an empty one matches nothing. */
function namedIn(text: string, botName: string): boolean {
  const folded = foldedForMatch(text);
  return botName
    .split(',')
    .map((name) => foldedForMatch(name.trim()))
    .some((name) => name !== '' && folded.includes(name));
}

/** Full-width letters as ASCII (NFKC; a Japanese keyboard often types "ｋａｉｗａ"), case folded. */
function foldedForMatch(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** A quoted message id kaiwa keeps in history: LINE's are digits; a megabyte of them is not an id. */
const PLAIN_MESSAGE_ID = /^[\w-]{1,64}$/;
