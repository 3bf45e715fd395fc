import type { webhook } from '@line/bot-sdk';

/**
 * Webhook bodies shaped as the LINE Platform sends them (field for field as in LINE's
 * Messaging API reference), each valid against `webhook.yml`. Spread a fixture to vary it:
 * `webhookBody([{ ...textMessageEvent, source: roomSource }])`.
 */

/**
 * The bot's own user ID: `destination` must match `^U[0-9a-f]{32}$`, and be the bot kaiwa talks
 * to — this is the emulator's (and so the fake LINE's) bot, what its `GET /v2/bot/info` answers.
 */
export const botUserId = 'Udce1d255340f770bc9b836ade232c709';
export const userId = 'U4af4980629a1b2c3d4e5f60718293a4b';
export const otherUserId = 'U49585cd0d5e6f708192a3b4c5d6e7f80';
export const groupId = 'Ca56f94637cc4347f90a25382909b24b9';
export const roomId = 'Ra8dbf4673c4c812cd491258042226c99';

export const userSource: webhook.UserSource = { type: 'user', userId };
export const groupSource: webhook.GroupSource = { type: 'group', groupId, userId };
export const roomSource: webhook.RoomSource = { type: 'room', roomId, userId };

/** When the fixtures' events happened: a day before the tests ran. */
export const FIXTURE_TIMESTAMP = Date.now() - 24 * 3_600_000;

/** Wraps events in the request body LINE posts to the webhook URL. */
export function webhookBody(
  events: readonly webhook.Event[],
  destination: string = botUserId,
): webhook.CallbackRequest {
  return { destination, events: [...events] };
}

/**
 * Fields every event carries; `replyToken` is added only where LINE sends one. Each fixture has
 * its own `webhookEventId` (a ULID), so a body holding several is not a redelivery.
 */
function eventFields(webhookEventIdSuffix: string): Omit<webhook.EventBase, 'type'> {
  return {
    // A day old: stale (quiet) for the runtime, yet young enough to tell from a replay.
    timestamp: FIXTURE_TIMESTAMP,
    mode: 'active',
    webhookEventId: `01FZ74A0TDDPYRVKNK77XKC3${webhookEventIdSuffix}`,
    deliveryContext: { isRedelivery: false },
  };
}

const replyToken = 'nHuyWiB7yP5Zw52FIkcQobQuGDXCTA';

type MessageEventWith<Content extends webhook.MessageContent> = webhook.MessageEvent & { message: Content };

export const textMessageEvent: MessageEventWith<webhook.TextMessageContent> = {
  ...eventFields('A0'),
  type: 'message',
  source: groupSource,
  replyToken,
  message: {
    type: 'text',
    id: '444573844083572737',
    quoteToken: 'q3Plxr4AgKd1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT',
    text: '@All @example Good Morning!! (love)',
    emojis: [{ index: 29, length: 6, productId: '5ac1bfd5040ab15980c9b435', emojiId: '001' }],
    mention: {
      mentionees: [
        { index: 0, length: 4, type: 'all' },
        { index: 5, length: 8, type: 'user', userId: otherUserId, isSelf: false },
      ],
    },
  },
};

export const imageMessageEvent: MessageEventWith<webhook.ImageMessageContent> = {
  ...eventFields('A1'),
  type: 'message',
  source: userSource,
  replyToken,
  message: {
    type: 'image',
    id: '354718705033693859',
    quoteToken: 'q3Plxr4AgKd1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sU',
    contentProvider: { type: 'line' },
    imageSet: { id: 'E005D41A7288F41B65593ED38FF6E9834B046AB36A37921A56BC236F13A91855', index: 1, total: 2 },
  },
};

export const videoMessageEvent: MessageEventWith<webhook.VideoMessageContent> = {
  ...eventFields('A2'),
  type: 'message',
  source: userSource,
  replyToken,
  message: {
    type: 'video',
    id: '325708',
    quoteToken: 'q3Plxr4AgKd1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sV',
    duration: 60000,
    contentProvider: {
      type: 'external',
      originalContentUrl: 'https://example.com/original.mp4',
      previewImageUrl: 'https://example.com/preview.jpg',
    },
  },
};

export const audioMessageEvent: MessageEventWith<webhook.AudioMessageContent> = {
  ...eventFields('A3'),
  type: 'message',
  source: userSource,
  replyToken,
  message: { type: 'audio', id: '325709', duration: 60000, contentProvider: { type: 'line' } },
};

export const fileMessageEvent: MessageEventWith<webhook.FileMessageContent> = {
  ...eventFields('A4'),
  type: 'message',
  source: userSource,
  replyToken,
  message: { type: 'file', id: '325710', fileName: 'file.txt', fileSize: 2138 },
};

export const locationMessageEvent: MessageEventWith<webhook.LocationMessageContent> = {
  ...eventFields('A5'),
  type: 'message',
  source: userSource,
  replyToken,
  message: {
    type: 'location',
    id: '325711',
    title: 'my location',
    address: '1-3 Kioicho, Chiyoda-ku, Tokyo, 102-8282, Japan',
    latitude: 35.67966,
    longitude: 139.73669,
  },
};

export const stickerMessageEvent: MessageEventWith<webhook.StickerMessageContent> = {
  ...eventFields('A6'),
  type: 'message',
  source: userSource,
  replyToken,
  message: {
    type: 'sticker',
    id: '1501597916',
    quoteToken: 'q3Plxr4AgKd1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sW',
    stickerId: '52002738',
    packageId: '11537',
    stickerResourceType: 'ANIMATION',
    keywords: ['cony', 'sally', 'Staring', 'hi', 'whatsup', 'line', 'howdy', 'HEY', 'Peeking', 'wave'],
  },
};

export const followEvent: webhook.FollowEvent = {
  ...eventFields('A7'),
  type: 'follow',
  source: userSource,
  replyToken,
  follow: { isUnblocked: false },
};

export const unfollowEvent: webhook.UnfollowEvent = {
  ...eventFields('A8'),
  type: 'unfollow',
  source: userSource,
};

export const joinEvent: webhook.JoinEvent = {
  ...eventFields('A9'),
  type: 'join',
  source: { type: 'group', groupId },
  replyToken,
};

export const leaveEvent: webhook.LeaveEvent = {
  ...eventFields('B0'),
  type: 'leave',
  source: { type: 'group', groupId },
};

export const memberJoinedEvent: webhook.MemberJoinedEvent = {
  ...eventFields('B1'),
  type: 'memberJoined',
  source: { type: 'group', groupId },
  replyToken,
  joined: {
    members: [
      { type: 'user', userId },
      { type: 'user', userId: otherUserId },
    ],
  },
};

export const memberLeftEvent: webhook.MemberLeftEvent = {
  ...eventFields('B2'),
  type: 'memberLeft',
  source: { type: 'group', groupId },
  left: { members: [{ type: 'user', userId: otherUserId }] },
};

export const postbackEvent: webhook.PostbackEvent = {
  ...eventFields('B3'),
  type: 'postback',
  source: userSource,
  replyToken,
  postback: { data: 'action=buy&itemid=111', params: { datetime: '2017-12-25T01:00' } },
};

export const unsendEvent: webhook.UnsendEvent = {
  ...eventFields('B4'),
  type: 'unsend',
  source: groupSource,
  unsend: { messageId: '325708' },
};

/** One fixture per event type, for tables that must cover them all. */
export const webhookEventFixtures = {
  textMessageEvent,
  imageMessageEvent,
  videoMessageEvent,
  audioMessageEvent,
  fileMessageEvent,
  locationMessageEvent,
  stickerMessageEvent,
  followEvent,
  unfollowEvent,
  joinEvent,
  leaveEvent,
  memberJoinedEvent,
  memberLeftEvent,
  postbackEvent,
  unsendEvent,
} satisfies Record<string, webhook.Event>;
