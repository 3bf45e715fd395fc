/** The HTTP answer one attempt got: what the SDK's errors leave out. */
export interface ObservedResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Wall-clock time (ms) it arrived, to read an HTTP-date `Retry-After` without a `Date` header. */
  readonly receivedAt: number;
}

/**
 * A `fetch` for one attempt (the SDK takes it as `httpOptions.fetch`) that remembers the
 * response's status and headers: `ApiError` carries neither `Retry-After` nor, when the
 * error body is not JSON, the status.
 */
export class ResponseObserver {
  last: ObservedResponse | undefined;

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await globalThis.fetch(input, init);
    this.last = { status: response.status, headers: response.headers, receivedAt: Date.now() };
    return response;
  };
}
