import type { HttpAnswer } from './http-answer.js';

/**
 * A LINE API answer, read whole: the part of a `Response` that `@line/bot-sdk`'s generated
 * clients read (`ok`, `status`, `text()`) and `LineApiError` reads (`statusText`, `headers`).
 * A real `Response` would build WHATWG body streams and a `Headers` for every call only to be
 * read once as text (docs/PERFORMANCE.md). The SDK's `…WithHttpInfo` methods hand it back as
 * their `httpResponse`; kaiwa calls none of them.
 */
export class LineAnswer {
  private parsedHeaders: Headers | undefined;

  constructor(private readonly answer: HttpAnswer) {}

  get status(): number {
    return this.answer.status;
  }

  get statusText(): string {
    return this.answer.statusText;
  }

  get ok(): boolean {
    return this.answer.status >= 200 && this.answer.status < 300;
  }

  /** Built on first use: a successful call's headers are rarely read. */
  get headers(): Headers {
    return (this.parsedHeaders ??= new Headers(this.answer.headers));
  }

  text(): Promise<string> {
    return Promise.resolve(this.answer.bytes.toString('utf8'));
  }
}
