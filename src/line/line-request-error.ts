/** Why a LINE call ended without an answer. */
export type NoAnswerReason = 'timeout' | 'aborted' | 'network' | 'too-large';

/**
 * A LINE call that got no usable answer: it timed out, the turn aborted it, the connection
 * failed or dropped mid-answer, or the answer was larger than any LINE sends. The message names
 * the operation and the reason only; the underlying error stays in `cause`.
 */
export class LineRequestError extends Error {
  override readonly name = 'LineRequestError';

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
}
