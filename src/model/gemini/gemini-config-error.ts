import { KaiwaError } from '../../errors/index.js';

const marker = Symbol.for('kaiwa.error.GeminiConfigError');

/**
 * A Gemini setting that cannot be used. `variable` names the environment variable (or
 * option) so start-up can fail with one clear line instead of a stack trace.
 */
export class GeminiConfigError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'GeminiConfigError' as const;
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`${variable} ${reason}`);
  }

  /** True for a `GeminiConfigError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is GeminiConfigError {
    return KaiwaError.hasMarker(value, marker);
  }
}
