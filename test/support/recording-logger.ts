import { createLogger, type LogLevel } from '../../src/logging/index.js';

/** One line a recording logger wrote: its level, message and fields. */
export interface LoggedLine {
  readonly level: string;
  readonly message: string;
  readonly [field: string]: unknown;
}

/** kaiwa's JSON-lines logger, writing into `lines` instead of stdout. */
export function recordingLogger(level: LogLevel = 'debug') {
  const lines: LoggedLine[] = [];
  const logger = createLogger({ level, write: (line) => lines.push(JSON.parse(line) as LoggedLine) });
  return { lines, logger };
}
