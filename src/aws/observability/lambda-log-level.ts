import { LOG_LEVELS, type LogLevel } from '../../logging/index.js';

/**
 * `LOG_LEVEL` for a function's logger, made before its configuration is read: an unknown value
 * gives `info` here, and the configuration reader reports it as the error it is.
 */
export function lambdaLogLevel(env: Readonly<Record<string, string | undefined>>): LogLevel {
  const level = env.LOG_LEVEL?.trim().toLowerCase();
  return LOG_LEVELS.find((known) => known === level) ?? 'info';
}
