import type { Logger } from '../logging/index.js';
import { requestAnswer, type HttpAnswer } from './http-answer.js';
import { LineAnswer } from './line-answer.js';
import { LineRequestError, type NoAnswerReason } from './line-request-error.js';
import { readCapped } from './read-capped.js';

export interface LineTransportOptions {
  readonly logger: Logger;
  /** A call with no complete answer after this long (ms) ends; default 10 s. */
  readonly timeoutMs?: number;
  /** The largest API answer read (bytes); LINE's JSON answers are a few KB. Default 1 MiB. */
  readonly maxAnswerBytes?: number;
  /** The fetch underneath; the global one by default. */
  readonly fetch?: typeof globalThis.fetch;
}

/** What applies to every LINE call a scoped client makes (`scopedClient`). */
export interface LineCallScope {
  /** The turn's abort signal: a call still running when it aborts ends at once. */
  readonly signal?: AbortSignal;
  /** Statuses the caller expects (404 for a user who left): logged at debug, not warn. */
  readonly expectedStatuses?: readonly number[];
}

/**
 * One request to LINE: a `fetch` init, its own timeout where the default does not fit, and the
 * caller's scope (its signal — a turn's, a download's own — and the statuses it expects).
 */
export interface LineRequestInit extends LineCallScope {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: RequestInit['body'];
  readonly timeoutMs?: number;
}

/** An answer whose body is still arriving, under the same timeout and signals as its request. */
export interface OpenAnswer {
  readonly response: Response;
  readonly operation: string;
  readonly requestId: string | undefined;
  /** Why the body stopped early, once it has: the request's timeout or one of its signals. */
  readonly stopReason: () => NoAnswerReason;
  /**
   * The body is read: the timeout and the caller's listener go now. Without it they last
   * until the timeout fires (unreferenced: the process does not wait for it).
   */
  readonly done: () => void;
}

/**
 * The one way kaiwa talks to LINE (Messaging API and content API alike). Every call gets a
 * timeout and the current turn's abort signal; a connection that fails or drops mid-answer ends
 * in a {@link LineRequestError}, never an unhandled rejection; every answer is logged with its
 * status and LINE's `x-line-request-id` (debug when it went well, warn when not) — and never
 * with a body, a header or a token (docs/security.md).
 *
 * `@line/bot-sdk` takes no signal: a client made by `createMessagingApiClient` calls through
 * this transport, and `scopedClient` gives it a turn's signal and expected statuses.
 *
 * @example
 * await scopedClient(client, { signal }).replyMessage({ replyToken, messages });
 */
export class LineTransport {
  private readonly timeoutMs: number;
  private readonly maxAnswerBytes: number;
  private readonly fetch: typeof globalThis.fetch;

  constructor(private readonly options: LineTransportOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxAnswerBytes = options.maxAnswerBytes ?? 1024 * 1024;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /**
   * An API call: the whole answer is read (up to the answer cap) before this resolves, so the
   * timeout covers the body too and the caller gets a complete `Response` whatever the status.
   * A text body (JSON, a form) or none goes over node:http(s) (`requestAnswer`); a multipart or
   * binary body over `fetch`.
   */
  async call(url: URL, init: LineRequestInit = {}): Promise<LineAnswer> {
    return new LineAnswer(
      init.body === undefined || typeof init.body === 'string'
        ? await this.callWithText(url, init, init.body)
        : await this.callThroughFetch(url, init),
    );
  }

  private async callWithText(url: URL, init: LineRequestInit, body: string | undefined): Promise<HttpAnswer> {
    const timeoutMs = init.timeoutMs ?? this.timeoutMs;
    const call = callSignal(timeoutMs, init.signal);
    const operation = operationOf(url, init);
    const started = performance.now();
    try {
      const answer = await requestAnswer(
        url,
        { method: init.method ?? 'GET', headers: init.headers ?? {}, body },
        this.maxAnswerBytes,
        call.signal,
      );
      if (answer === undefined) throw new LineRequestError(operation, 'too-large');
      const requestId = answer.headers.find(([name]) => name.toLowerCase() === 'x-line-request-id')?.[1];
      this.logAnswer(operation, answer.status, requestId, started, init);
      return answer;
    } catch (error) {
      const reason: NoAnswerReason = init.signal?.aborted
        ? 'aborted'
        : call.timedOut()
          ? 'timeout'
          : 'network';
      throw this.noAnswer(operation, error, reason, timeoutMs);
    } finally {
      call.done();
    }
  }

  private async callThroughFetch(url: URL, init: LineRequestInit): Promise<HttpAnswer> {
    const answer = await this.open(url, init);
    const { response, operation } = answer;
    let bytes: Buffer;
    try {
      const read = await readCapped(response, this.maxAnswerBytes);
      if (read === undefined) throw new LineRequestError(operation, 'too-large');
      bytes = read;
    } catch (error) {
      throw this.noAnswer(operation, error, answer.stopReason(), init.timeoutMs ?? this.timeoutMs);
    } finally {
      answer.done();
    }
    return {
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers],
      bytes,
    };
  }

  /**
   * A call whose body the caller streams (content downloads): resolves with the headers; the
   * timeout and signals keep running while the body arrives, so reading it ends with them.
   * Throws {@link LineRequestError} when no answer came at all.
   */
  async open(url: URL, init: LineRequestInit = {}): Promise<OpenAnswer> {
    const timeoutMs = init.timeoutMs ?? this.timeoutMs;
    const caller = init.signal;
    const call = callSignal(timeoutMs, caller);
    const operation = operationOf(url, init);
    const stopReason = (): NoAnswerReason =>
      caller?.aborted ? 'aborted' : call.timedOut() ? 'timeout' : 'network';
    const started = performance.now();
    let response: Response;
    try {
      response = await this.fetch(url, {
        ...(init.method && { method: init.method }),
        ...(init.headers && { headers: init.headers }),
        ...(init.body !== undefined && { body: init.body }),
        signal: call.signal,
      });
    } catch (error) {
      call.done();
      throw this.noAnswer(operation, error, stopReason(), timeoutMs);
    }
    const requestId = response.headers.get('x-line-request-id') ?? undefined;
    this.logAnswer(operation, response.status, requestId, started, init);
    return { response, operation, requestId, stopReason, done: call.done };
  }

  /** Every answer, at debug when it went well (or was expected), at warn when not. */
  private logAnswer(
    operation: string,
    status: number,
    requestId: string | undefined,
    started: number,
    init: LineRequestInit,
  ) {
    const fields = { operation, status, requestId, ms: Math.round(performance.now() - started) };
    const expected = (status >= 200 && status < 300) || (init.expectedStatuses?.includes(status) ?? false);
    if (expected) this.options.logger.debug('LINE call', fields);
    else this.options.logger.warn('LINE call failed', fields);
  }

  private noAnswer(operation: string, error: unknown, reason: NoAnswerReason, timeoutMs: number) {
    const failure = LineRequestError.isInstance(error)
      ? error
      : new LineRequestError(operation, reason, { cause: error, timeoutMs });
    // A turn that aborts its own calls is not a LINE failure.
    this.options.logger[failure.reason === 'aborted' ? 'debug' : 'warn']('LINE call got no answer', {
      operation,
      reason: failure.reason,
      ...(failure.reason === 'network' && { error: causeOf(error) }),
    });
    return failure;
  }
}

function operationOf(url: URL, init: LineRequestInit): string {
  return `${(init.method ?? 'GET').toUpperCase()} ${url.pathname}`;
}

/**
 * One call's signal: aborted by its own timeout or by the caller's signal. Made of one
 * AbortController, a timer and a listener — not `AbortSignal.timeout` and `AbortSignal.any`,
 * whose weak references and finalisers cost every call (docs/PERFORMANCE.md).
 */
function callSignal(timeoutMs: number, caller: AbortSignal | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(caller!.reason);
  const done = () => {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onAbort);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
    done();
  }, timeoutMs);
  timer.unref();
  if (caller?.aborted) controller.abort(caller.reason);
  else caller?.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, timedOut: () => timedOut, done };
}

/** The name and code of what failed underneath (`SocketError`, `UND_ERR_SOCKET`), no message text. */
function causeOf(error: unknown): { name?: string; code?: string } {
  const cause = (error as { cause?: unknown } | undefined)?.cause ?? error;
  const { name, code } = (cause ?? {}) as { name?: unknown; code?: unknown };
  return {
    ...(typeof name === 'string' && { name }),
    ...(typeof code === 'string' && { code }),
  };
}
