export { GeminiModel } from './gemini-model.js';
export type { GeminiCacheOptions, GeminiModelOptions, GeminiRetryOptions, Sleep } from './gemini-options.js';
export { DEFAULT_GEMINI_MODEL } from './gemini-options.js';
export { geminiOptionsFromEnv } from './gemini-config.js';
export type { Environment } from './gemini-config.js';
export { GeminiConfigError } from './gemini-config-error.js';
export { ModelUnavailableError } from './model-unavailable-error.js';
export type { ModelFailureKind } from './model-unavailable-error.js';
