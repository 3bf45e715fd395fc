import { KaiwaError } from '../errors/index.js';
/** Who holds a SQLite store file, as recorded in it when the holder opened it. */
export interface StoreHolder {
  readonly pid: number;
  readonly host: string;
  /** When the holder opened the file (epoch ms). */
  readonly since: number;
}

const marker = Symbol.for('kaiwa.error.StoreInUseError');

/**
 * Another process has the SQLite file open: kaiwa runs one process per file (several
 * processes share DynamoDB instead). Its message is the one line `npm start` prints.
 */
export class StoreInUseError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'StoreInUseError' as const;
  constructor(
    readonly file: string,
    readonly holder: StoreHolder | undefined,
  ) {
    const by = holder
      ? `process ${holder.pid} on ${holder.host} (since ${new Date(holder.since).toISOString()})`
      : 'another process';
    super(
      `${file} is in use by ${by}: kaiwa runs one process per SQLite file; stop that process, or use STORE=dynamodb to run several`,
    );
  }

  /** True for a `StoreInUseError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is StoreInUseError {
    return KaiwaError.hasMarker(value, marker);
  }
}
