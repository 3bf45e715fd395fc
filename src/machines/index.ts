export {
  AWAITING_CHECKPOINT_TAG,
  conversationMachine,
  CONVERSATION_MACHINE_VERSION,
  CONVERSATION_SYSTEM_ID,
} from './conversation-machine.js';
export type { ConversationMachine } from './conversation-machine.js';
export { provideConversationServices, conversationContextOf } from './conversation-services.js';
export type { ConversationServices, DeliveryPort, MediaPort } from './conversation-services.js';
export { offeredToolsFields } from './tool-step.js';
export type { PreparedStep, StepPromptPort } from './tool-step.js';
export { defaultConversationSettings } from './conversation-types.js';
export type * from './conversation-types.js';
export { anyOf, finalToolRan, modelCallLimit, noFunctionCalls, turnShouldStop } from './stop-conditions.js';
export type { StopCondition } from './stop-conditions.js';
export { LimitReachedError } from './limit-reached-error.js';
export { limitReached, recordUsage } from './usage-limits.js';
export { answerCheckpointsAtOnce } from './standalone-conversation.js';
