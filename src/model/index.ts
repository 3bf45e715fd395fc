export type {
  MediaPart,
  ModelFunctionCall,
  ModelPort,
  ModelRequest,
  ModelResponse,
  TokenUsage,
  ToolDeclaration,
} from './model-port.js';
export { noUsage } from './model-port.js';
export { ScriptedModel, callReply, callTools, textOnly } from './scripted-model.js';
export type { RecordedModelCall, ScriptStep } from './scripted-model.js';
export { OfflineModel } from './offline-model.js';
export {
  DEFAULT_GEMINI_MODEL,
  GeminiConfigError,
  GeminiModel,
  compactProviderParts,
  ModelNoAnswerError,
  ModelUnavailableError,
  geminiOptionsFromEnv,
} from './gemini/index.js';
export type {
  Environment,
  GeminiCacheOptions,
  GeminiModelOptions,
  GeminiRetryOptions,
  ModelFailureKind,
  NoAnswerReason,
  Sleep,
} from './gemini/index.js';
