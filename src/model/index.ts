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
