import type { JsonObject } from './json.js';
import type { ChatEvent, Sender } from './inbound-message.js';

/** A function call the model asked for. `id` is stable within the conversation. */
export interface FunctionCall {
  readonly id: string;
  readonly name: string;
  readonly args: JsonObject;
}

/** The answer to one function call, exactly as the model will see it. */
export interface FunctionResult {
  readonly callId: string;
  readonly name: string;
  readonly response: JsonObject;
  /** `reply`: LINE's ids of the messages it sent, so a user's quote of one can say what it quotes. */
  readonly lineMessageIds?: readonly string[];
}

/** A reference to media the user sent; the bytes stay with LINE (or a cache), never in history. */
export interface Attachment {
  readonly kind: 'image' | 'video' | 'audio' | 'file';
  /** LINE's message id, for the content API. */
  readonly messageId: string;
  readonly mimeType?: string;
}

export interface UserEntry {
  readonly role: 'user';
  readonly eventId: string;
  readonly sender?: Sender;
  /** The message as text; for media, a description with its metadata. */
  readonly text: string;
  readonly timestamp: number;
  /** LINE's message id, so an unsend can remove the entry, and a quote of it say what it quotes. */
  readonly messageId?: string;
  /** LINE's id of the earlier message (a user's, or the bot's reply) this one replies to. */
  readonly quotedMessageId?: string;
  readonly attachment?: Attachment;
  /**
   * The entry reports an event (a button pressed, a reminder due, a member joining), not words
   * someone wrote: an adapter marks it where no text can (docs/security.md, "Events a user
   * cannot type").
   */
  readonly event?: ChatEvent;
  /** A reminder due: when it was due (ms); its `timestamp` is when it fired. */
  readonly dueAt?: number;
}

export interface ModelEntry {
  readonly role: 'model';
  readonly turnId: string;
  readonly text?: string;
  readonly calls: readonly FunctionCall[];
  /** What the provider returned, kept verbatim so it can be replayed (e.g. thought signatures). */
  readonly providerParts?: readonly JsonObject[];
}

export interface ToolEntry {
  readonly role: 'tool';
  readonly turnId: string;
  readonly results: readonly FunctionResult[];
}

/** Provider-neutral conversation history; adapters translate it to their wire format. */
export type HistoryEntry = UserEntry | ModelEntry | ToolEntry;
