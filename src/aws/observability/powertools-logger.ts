import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { describeError, type LogFields, type Logger, type LogLevel } from '../../logging/index.js';
import { KaiwaLogFormatter } from './kaiwa-log-formatter.js';

/**
 * Powertools' Logger for a Lambda function, writing kaiwa's JSON lines (`KaiwaLogFormatter`)
 * and describing errors as the local logger does (`describeError`: never an HTTP body or a
 * request config, where tokens and message text hide).
 */
export function createPowertoolsLogger(options: { serviceName: string; level: LogLevel }): PowertoolsLogger {
  return new PowertoolsLogger({
    serviceName: options.serviceName,
    logLevel: options.level.toUpperCase() as Uppercase<LogLevel>,
    logFormatter: new KaiwaLogFormatter(),
    jsonReplacerFn: (_key, value) => (value instanceof Error ? describeError(value) : value),
  });
}

/**
 * kaiwa's `Logger` port backed by a Powertools Logger: what the runtime logs on Lambda carries
 * the invocation's request id and cold start (set by `observedHandler` through `addContext`).
 * A child adds its fields to each line it writes; the Powertools logger stays shared, so every
 * child sees the current invocation.
 */
export function powertoolsLogger(powertools: PowertoolsLogger, bindings: LogFields = {}): Logger {
  const fieldsOf = (fields?: LogFields) => ({ ...bindings, ...fields });
  return {
    debug: (message, fields) => powertools.debug(message, fieldsOf(fields)),
    info: (message, fields) => powertools.info(message, fieldsOf(fields)),
    warn: (message, fields) => powertools.warn(message, fieldsOf(fields)),
    error: (message, fields) => powertools.error(message, fieldsOf(fields)),
    child: (fields) => powertoolsLogger(powertools, fieldsOf(fields)),
  };
}
