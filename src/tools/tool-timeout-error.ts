import { KaiwaError } from '../errors/index.js';

const marker = Symbol.for('kaiwa.error.ToolTimeoutError');

/** A tool call that outlived its timeout; the registry tells the model so. */
export class ToolTimeoutError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'ToolTimeoutError' as const;
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
  }

  /** True for a `ToolTimeoutError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is ToolTimeoutError {
    return KaiwaError.hasMarker(value, marker);
  }
}
