import type { InboxItem, JsonObject } from '../domain/index.js';

/** A source's persisted conversation: the actor snapshot (its context holds the history). */
export interface StoredConversation {
  readonly sourceId: string;
  /** Increases by one on every save; the optimistic-concurrency token. */
  readonly version: number;
  /** The machine version that wrote the snapshot (see CONVERSATION_MACHINE_VERSION). */
  readonly machineVersion: number;
  readonly snapshot: JsonObject;
  /** A turn is running or messages wait: the source has work even with an empty inbox. */
  readonly busy: boolean;
  readonly updatedAt: number;
}

export interface SaveRequest {
  readonly sourceId: string;
  /** The version that was loaded; 0 for a conversation that was never saved. */
  readonly expectedVersion: number;
  readonly machineVersion: number;
  readonly snapshot: JsonObject;
  readonly busy: boolean;
  /** Inbox messages that this snapshot now holds: removed in the same write. */
  readonly consumedEventIds: readonly string[];
}

/**
 * The persistence port. The inbox is the source of truth for what a source must still
 * process; the conversation record for where it stands. Implementations: memory, file,
 * DynamoDB — one conformance suite checks them all.
 */
export interface ConversationStore {
  /**
   * Claims the event id and appends the message to its source's inbox, durably, before
   * the webhook answers. Returns false when the id was claimed before (a redelivery).
   */
  accept(message: InboxItem): Promise<boolean>;
  /** The source's waiting messages, oldest first. */
  inbox(sourceId: string): Promise<InboxItem[]>;
  load(sourceId: string): Promise<StoredConversation | undefined>;
  /**
   * Writes the conversation only if its version is still `expectedVersion`; returns the new
   * version. Throws `VersionConflictError` when another writer got there first.
   */
  save(request: SaveRequest): Promise<number>;
  /** Sources with waiting messages or a turn in progress: resumed after a restart. */
  sourcesWithWork(): Promise<string[]>;
  /** Every stored conversation's id. */
  listSources(): Promise<string[]>;
  /**
   * Deletes the conversation and its inbox (unfollow, leave: the user's data goes). Event
   * claims stay until they expire, so a redelivery is still recognised.
   */
  deleteSource(sourceId: string): Promise<void>;
}
