import { KaiwaError } from '../errors/index.js';

const marker = Symbol.for('kaiwa.error.MessageTakenBackError');

/**
 * A checkpoint would consume inbox items whose messages their senders took back (an unsend was
 * accepted while the turn ran): nothing of it is written. The turn is dropped before its answer;
 * the source reloads and consumes the message with its unsend (docs/runtime.md, "unsend").
 */
export class MessageTakenBackError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'MessageTakenBackError' as const;
  constructor(
    readonly sourceId: string,
    /** The inbox keys of the messages taken back. */
    readonly keys: readonly string[],
  ) {
    super(`source ${sourceId}: inbox items ${keys.join(', ')} were taken back by their sender`);
  }

  /** True for a `MessageTakenBackError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is MessageTakenBackError {
    return KaiwaError.hasMarker(value, marker);
  }
}
