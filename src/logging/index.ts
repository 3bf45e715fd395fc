export { createLogger, silentLogger, LOG_LEVELS } from './logger.js';
export type { Logger, LogFields, LogLevel, LoggerOptions } from './logger.js';
