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
  return new JsonLinesLogger(
    {
      threshold: LOG_LEVELS.indexOf(options.level ?? 'info'),
      write: options.write ?? ((line: string) => process.stdout.write(line + '\n')),
      now: options.now ?? Date.now,
    },
    bindings,
  );
}

interface Sink {
  readonly threshold: number;
  readonly write: (line: string) => void;
  readonly now: () => number;
}

/**
 * Methods on the prototype, the sink shared: a child logger (one per source, per call) costs
 * one small object, not a set of closures.
 */
class JsonLinesLogger implements Logger {
  constructor(
    private readonly sink: Sink,
    private readonly bindings: LogFields,
  ) {}

  debug(message: string, fields?: LogFields): void {
    this.log(0, 'debug', message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.log(1, 'info', message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.log(2, 'warn', message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.log(3, 'error', message, fields);
  }

  child(fields: LogFields): Logger {
    return new JsonLinesLogger(this.sink, { ...this.bindings, ...fields });
  }

  private log(rank: number, level: LogLevel, message: string, fields: LogFields | undefined) {
    if (rank < this.sink.threshold) return;
    this.sink.write(
      JSON.stringify(
        { time: new Date(this.sink.now()).toISOString(), level, message, ...this.bindings, ...fields },
        errorReplacer,
      ),
    );
  }
}

/** A logger that drops everything (tests, benchmarks at `silent`). */
export const silentLogger: Logger = createLogger({ level: 'silent' });

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? describeError(value) : value;
}
