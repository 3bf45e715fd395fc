export { VersionConflictError } from './version-conflict-error.js';
export { acceptEvents } from './accept-events.js';
export type { AcceptResult } from './accept-events.js';
export { DynamoDbSourceStore } from './dynamodb-source-store.js';
export type { DynamoDbSourceStoreOptions } from './dynamodb-source-store.js';
export type { DynamoDbSourceStoreLimits } from './dynamodb-source-limits.js';
export { createDynamoDbClient } from './dynamodb-client.js';
export type { DynamoDbClientSettings } from './dynamodb-client.js';
export {
  conversationTableDefinition,
  dynamoDbKeys,
  INBOX_PREFIX,
  timeToLiveSpecification,
  WORK_INDEX,
} from './dynamodb-table.js';
export { createConversationTable } from './create-conversation-table.js';
export { ItemTooLargeError } from './item-too-large-error.js';
export { MAX_ITEM_BYTES } from './dynamodb-item-size.js';
export type {
  Checkpoint,
  ClosedTurn,
  HistoryRecord,
  HistoryWindow,
  LoadedSource,
  Ownership,
  SourceHead,
  SourceOwner,
  SourceStore,
  SourceSummary,
  ReadableInboxItem,
  StoredInboxItem,
  StoredProfile,
  AcceptedAndAcquired,
  UnreadableInboxItem,
  UnreadableRecord,
} from './source-store.js';
export { DEFAULT_CLAIM_TTL_MS, resolveSourceStoreOptions } from './source-store-options.js';
export type { ResolvedSourceStoreOptions, SourceStoreOptions } from './source-store-options.js';
export { OwnershipLostError } from './ownership-lost-error.js';
export { MessageTakenBackError } from './message-taken-back-error.js';
export { MemorySourceStore, MemorySourceTables } from './memory-source-store.js';
export type { MemorySourceStoreOptions } from './memory-source-store.js';
export { openSqliteSourceStore } from './open-sqlite-source-store.js';
export type { SqliteSourceStore, SqliteSourceStoreOptions } from './sqlite-source-store.js';
export type { FileStoreImport } from './file-store-import.js';
export { StoreInUseError } from './store-in-use-error.js';
export type { StoreHolder } from './store-in-use-error.js';
