import { HTTPFetchError } from '@line/bot-sdk';

/**
 * LINE answered with an error status. It is the SDK's `HTTPFetchError` (so `status`, `headers`
 * and `body` read as the SDK's clients would give them), but its message carries only the
 * operation, the status and LINE's request id — never the body, which may echo the request (a
 * proxy in between can put the reply token, the text or the access token there). The body stays
 * readable for classification (`monthly limit`, `Invalid reply token`) and is left out of
 * `JSON.stringify` and the logs.
 */
export class LineApiError extends HTTPFetchError {
  override readonly name = 'LineApiError';
  /** `x-line-request-id`: what LINE's support asks for. */
  readonly requestId: string | undefined;

  constructor(
    /** `POST /v2/bot/message/reply`: method and path, never the query or the body. */
    readonly operation: string,
    response: { status: number; statusText: string; headers: Headers },
    body: string,
  ) {
    const requestId = response.headers.get('x-line-request-id') ?? undefined;
    super(`LINE ${operation} answered ${response.status}${requestId ? ` (request id ${requestId})` : ''}`, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      body,
    });
    this.requestId = requestId;
    Object.defineProperty(this, 'body', { value: body, enumerable: false, writable: false });
  }
}
