import { KaiwaError } from '../errors/index.js';

const marker = Symbol.for('kaiwa.error.RetriesExhaustedError');

/**
 * A source still fails after its last scheduled retry. Thrown from the worker so that the
 * asynchronous invocation fails for good and Lambda puts the retry event, with this error, in
 * the dead-letter queue; the source's inbox keeps its messages.
 */
export class RetriesExhaustedError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'RetriesExhaustedError' as const;
  constructor(
    readonly sourceId: string,
    readonly attempt: number,
  ) {
    super(`source ${sourceId} still fails after scheduled retry ${attempt}`);
  }

  /** True for a `RetriesExhaustedError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is RetriesExhaustedError {
    return KaiwaError.hasMarker(value, marker);
  }
}
