import { KaiwaError } from '../../errors/index.js';

const marker = Symbol.for('kaiwa.error.ResponseTooLargeError');

/** A response body larger than the caller allows; reading stopped at the limit. */
export class ResponseTooLargeError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'ResponseTooLargeError' as const;
  constructor(readonly maxBytes: number) {
    super(`the response body is larger than ${maxBytes} bytes`);
  }

  /** True for a `ResponseTooLargeError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is ResponseTooLargeError {
    return KaiwaError.hasMarker(value, marker);
  }
}
