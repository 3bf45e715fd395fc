export type { ConversationStore, SaveRequest, StoredConversation } from './conversation-store.js';
export { VersionConflictError } from './version-conflict-error.js';
export { MemoryStore } from './memory-store.js';
export type { MemoryStoreOptions } from './memory-store.js';
export { FileStore } from './file-store.js';
export type { FileStoreOptions } from './file-store.js';
