import type { Attachment } from './history.js';
import type { Source } from './source.js';

/**
 * What happened in a chat that is not words someone wrote: a LINE event, a reminder due, or a
 * tool's background work finished.
 */
export type ChatEvent =
  'follow' | 'join' | 'memberJoined' | 'memberLeft' | 'postback' | 'reminder' | 'toolFinished';

/** How a reminder's text begins when it comes due (`ChatEvent` 'reminder'). */
export const REMINDER_DUE_MARK = '[reminder due] ';

/** What a reminder due reminds of: its text without the mark; undefined for any other text. */
export function reminderTextOf(text: string): string | undefined {
  return text.startsWith(REMINDER_DUE_MARK) ? text.slice(REMINDER_DUE_MARK.length) : undefined;
}

/**
 * A reminder due this long after its time is late enough to say so: a local process down at
 * its time, or a reminder function retried for hours. The scheduler itself fires within a minute.
 */
export const REMINDER_LATE_AFTER_MS = 5 * 60_000;

/** How late a reminder due came (ms) when that is worth saying; undefined for anything else. */
export function reminderLateBy(entry: {
  readonly event?: ChatEvent;
  readonly timestamp: number;
  readonly dueAt?: number;
}): number | undefined {
  if (entry.event !== 'reminder' || entry.dueAt === undefined) return undefined;
  const late = entry.timestamp - entry.dueAt;
  return Number.isFinite(late) && late >= REMINDER_LATE_AFTER_MS ? late : undefined;
}

/** "40 seconds", "3 hours", "2 days": a delay in the largest whole unit, for a text someone reads. */
export function delayInWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const [count, unit] =
    ms < 120_000
      ? [Math.floor(ms / 1000), 'second']
      : minutes < 120
        ? [minutes, 'minute']
        : minutes < 48 * 60
          ? [Math.floor(minutes / 60), 'hour']
          : [Math.floor(minutes / 1440), 'day'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** Who wrote a message. The display name is filled in when known. */
export interface Sender {
  readonly userId: string;
  readonly displayName?: string;
  /** When the display name was looked up (ms); absent when it came from the cache. */
  readonly profileFetchedAt?: number;
}

/**
 * One user message as it waits in a source's inbox and enters its actor: text, media,
 * stickers, locations, postbacks and follow/join notes all arrive as one of these.
 * Everything here is plain JSON: it is persisted before the webhook answers.
 */
export interface InboundMessage {
  readonly kind?: 'message';
  /** LINE's `webhookEventId`: the key for deduplication and the turn's id. */
  readonly eventId: string;
  readonly source: Source;
  readonly sender?: Sender;
  /** The message as text; for media, stickers and events, a description with their metadata. */
  readonly text: string;
  /** LINE's message id: what an unsend refers to, and the key of media content. */
  readonly messageId?: string;
  readonly attachment?: Attachment;
  /** The event's own `timestamp` (ms); the reply token's age counts from here. */
  readonly timestamp: number;
  readonly replyToken?: string;
  readonly quoteToken?: string;
  /** LINE's id of the earlier message this one replies to (quotes). */
  readonly quotedMessageId?: string;
  /** The LINE event it came from when it was not a message (follow, join, postback, …). */
  readonly lineEvent?: ChatEvent;
  /** A reminder due: when it was due (ms), so one that comes late says so (`reminderLateBy`). */
  readonly dueAt?: number;
  /** Recorded in history without starting a turn (group talk not addressed to the bot, notes). */
  readonly quiet?: boolean;
  /**
   * Older than `KAIWA_STALE_EVENT_MS` when the webhook accepted it: kept as quiet context, never
   * answered by push (docs/security.md, "Stale and misdirected events").
   */
  readonly stale?: boolean;
  /** The group's or room's member count, when it was looked up for this event. */
  readonly memberCount?: number;
  /** The group's name, when it was looked up for this event. */
  readonly chatTitle?: string;
  /**
   * Present on the one item that stands for the messages a full inbox did not keep
   * (docs/security.md, "A source's inbox"): its turn sends the inbox-full notice, no model call.
   */
  readonly overflow?: InboxOverflow;
}

/** How many messages a full inbox did not keep, and how many of them were addressed to the bot. */
export interface InboxOverflow {
  readonly count: number;
  /** Not quiet: when none was, no notice is sent (group talk not addressed to the bot). */
  readonly addressed: number;
}

/** A message was taken back: it leaves history. */
export interface UnsendEvent {
  readonly kind: 'unsend';
  readonly eventId: string;
  readonly source: Source;
  readonly timestamp: number;
  readonly messageId: string;
}

/** The user unfollowed or the bot left: the source's data goes (unless retention says otherwise). */
export interface ForgetEvent {
  readonly kind: 'forget';
  readonly eventId: string;
  readonly source: Source;
  readonly timestamp: number;
  readonly reason: 'unfollow' | 'leave';
}

/** What a source's inbox holds, in arrival order. */
export type InboxItem = InboundMessage | UnsendEvent | ForgetEvent;

export function isMessage(item: InboxItem): item is InboundMessage {
  return item.kind === undefined || item.kind === 'message';
}
