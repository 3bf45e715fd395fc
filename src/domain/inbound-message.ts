import type { Attachment } from './history.js';
import type { Source } from './source.js';

/** Who wrote a message. The display name is filled in when known. */
export interface Sender {
  readonly userId: string;
  readonly displayName?: string;
}

/**
 * One user message as it waits in a source's inbox and enters its actor.
 * Everything here is plain JSON: it is persisted before the webhook answers.
 */
export interface InboundMessage {
  /** LINE's `webhookEventId`: the key for deduplication and the turn's id. */
  readonly eventId: string;
  readonly source: Source;
  readonly sender?: Sender;
  /** The message as text; for media, a description with its metadata. */
  readonly text: string;
  readonly attachment?: Attachment;
  /** The event's own `timestamp` (ms); the reply token's age counts from here. */
  readonly timestamp: number;
  readonly replyToken?: string;
  readonly quoteToken?: string;
}
