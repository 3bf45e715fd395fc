export {
  DEFAULT_MEDIA_TYPES,
  loadConfig,
  MEDIA_TYPE_CHOICES,
  sideEffectTimeoutMs,
  STORE_KINDS,
} from './config.js';
export type { KaiwaConfig, LineChannelConfig, StoreKind } from './config.js';
export { ConfigError } from './config-error.js';
export type { DynamoDbConfig } from './dynamodb-config.js';
export type { Env } from './env-readers.js';
