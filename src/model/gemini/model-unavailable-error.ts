import { KaiwaError } from '../../errors/index.js';

/** Why the model could not answer, as far as the adapter could tell. */
export type ModelFailureKind =
  /** The API answered with an HTTP error status. */
  | 'http'
  /** The connection failed before an answer (reset, refused, DNS). */
  | 'network'
  /** One attempt took longer than its timeout. */
  | 'timeout'
  /** The API answered 2xx with a body that is not the JSON it promised. */
  | 'malformed-response'
  /** The turn's deadline left no time for another attempt. */
  | 'deadline'
  /** Anything else (a bug, an SDK-side validation error): never retried. */
  | 'unexpected';

const marker = Symbol.for('kaiwa.error.ModelUnavailableError');

/**
 * The model failed for good: the error was not retryable, the attempts ran out, or the
 * turn's deadline came first. The conversation machine answers it with an apology.
 */
export class ModelUnavailableError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'ModelUnavailableError' as const;
  constructor(
    readonly kind: ModelFailureKind,
    /** Attempts made, the first included (0 when the deadline had passed before the first). */
    readonly attempts: number,
    /** The last HTTP status, when there was one. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(
      `model unavailable after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${kind}${status === undefined ? '' : ` (HTTP ${status})`}`,
      options,
    );
  }

  /** True for a `ModelUnavailableError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is ModelUnavailableError {
    return KaiwaError.hasMarker(value, marker);
  }
}
