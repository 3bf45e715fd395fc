export { checkOwnTools, composeConversations } from './compose-conversations.js';
export type { ConversationParts, Conversations, HostExtras } from './compose-conversations.js';
export { createModel } from './create-model.js';
export { createStore } from './create-store.js';
export { DynamoDbBackgroundLedger } from './dynamodb-background-ledger.js';
export type { DynamoDbBackgroundLedgerOptions } from './dynamodb-background-ledger.js';
