import { describeError } from './describe-error.js';

/** Log levels in increasing severity; `LOG_LEVEL` picks the lowest one written. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Record<string, unknown>;

/** A structured logger: one JSON object per line. Message text belongs at `debug` only. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; defaults to stdout. */
  write?: (line: string) => void;
  now?: () => number;
}

/** Creates the JSON-lines logger used everywhere in kaiwa. */
export function createLogger(options: LoggerOptions = {}, bindings: LogFields = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const now = options.now ?? Date.now;
  const log = (level: LogLevel, message: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    write(
      JSON.stringify(
        { time: new Date(now()).toISOString(), level, message, ...bindings, ...fields },
        errorReplacer,
      ),
    );
  };
  return {
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
    child: (fields) => createLogger(options, { ...bindings, ...fields }),
  };
}

/** A logger that drops everything (tests, benchmarks at `silent`). */
export const silentLogger: Logger = createLogger({ level: 'silent' });

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? describeError(value) : value;
}
