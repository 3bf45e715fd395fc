export { checkOwnTools, composeConversations } from './compose-conversations.js';
export type { ConversationParts, Conversations, HostExtras } from './compose-conversations.js';
export { createModel } from './create-model.js';
export { createStore } from './create-store.js';
