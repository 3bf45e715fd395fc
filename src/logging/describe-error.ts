/** What a log line says about an error: where it came from, never the data it carried. */
export interface ErrorDescription {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  /** A system or library code (`ECONNRESET`, `UND_ERR_SOCKET`). */
  readonly code?: string;
  /** What it wraps (`fetch failed` ← `SocketError: other side closed`), a few levels deep. */
  readonly cause?: ErrorDescription;
}

/**
 * Describes an error for a log line: name, message, stack, code and cause chain. Nothing else an
 * error object carries (an HTTP body, a request config, a raw payload) is copied — those are
 * where tokens and message text hide. A thrown non-error is described by its type only.
 */
export function describeError(error: unknown, depth = 3): ErrorDescription {
  if (!(error instanceof Error)) {
    const type = error === null ? 'null' : typeof error;
    return { name: 'NonError', message: `a ${type} was thrown, not an Error` };
  }
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(error.stack && { stack: error.stack }),
    ...(typeof code === 'string' && { code }),
    ...(depth > 0 && error.cause !== undefined && { cause: describeError(error.cause, depth - 1) }),
  };
}
