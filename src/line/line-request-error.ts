import { KaiwaError } from '../errors/index.js';

/** Why a LINE call ended without an answer. */
export type NoAnswerReason = 'timeout' | 'aborted' | 'network' | 'too-large';

const marker = Symbol.for('kaiwa.error.LineRequestError');

/**
 * A LINE call that got no usable answer: it timed out, the turn aborted it, the connection
 * failed or dropped mid-answer, or the answer was larger than any LINE sends. The message names
 * the operation and the reason only; the underlying error stays in `cause`.
 */
export class LineRequestError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'LineRequestError' as const;

  constructor(
    /** `POST /v2/bot/message/reply`: method and path, never the query or the body. */
    readonly operation: string,
    readonly reason: NoAnswerReason,
    options: { cause?: unknown; timeoutMs?: number } = {},
  ) {
    super(
      `LINE ${operation}: ${reason === 'timeout' ? `no answer within ${options.timeoutMs ?? '?'} ms` : reason}`,
      { cause: options.cause },
    );
  }

  /** True for a `LineRequestError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is LineRequestError {
    return KaiwaError.hasMarker(value, marker);
  }
}
