export { createLogger, silentLogger, LOG_LEVELS } from './logger.js';
export type { Logger, LogFields, LogLevel, LoggerOptions } from './logger.js';
export { describeError } from './describe-error.js';
export type { ErrorDescription } from './describe-error.js';
