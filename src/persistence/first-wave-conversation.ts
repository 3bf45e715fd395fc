import type { JsonObject } from '../domain/index.js';

/**
 * A conversation as the first wave stored it: the whole actor snapshot (history, settings,
 * profiles and queued messages in its context) as one record — a `conversations/<id>.json` file
 * or a DynamoDB `CONVERSATION` item. Only the migrations read it (`importFileStore`,
 * `migrateLegacyConversation`; docs/persistence.md, "Migration from the first wave").
 */
export interface FirstWaveConversation {
  readonly sourceId: string;
  /** Increased by one on every save. */
  readonly version: number;
  /** The machine version that wrote the snapshot (see CONVERSATION_MACHINE_VERSION). */
  readonly machineVersion: number;
  readonly snapshot: JsonObject;
  /** A turn was running or messages waited. */
  readonly busy: boolean;
  readonly updatedAt: number;
}
