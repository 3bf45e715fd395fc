import { KaiwaError } from '../errors/index.js';

const marker = Symbol.for('kaiwa.error.SecretNotFoundError');

/** SSM parameters that were asked for and do not exist (or are not readable). */
export class SecretNotFoundError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'SecretNotFoundError' as const;
  constructor(readonly parameterNames: readonly string[]) {
    super(`SSM parameters not found: ${parameterNames.join(', ')}`);
  }

  /** True for a `SecretNotFoundError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is SecretNotFoundError {
    return KaiwaError.hasMarker(value, marker);
  }
}
