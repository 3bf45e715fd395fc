import http from 'node:http';
import https from 'node:https';

/** A whole answer to one request: what a `Response` is made of. */
export interface HttpAnswer {
  readonly status: number;
  readonly statusText: string;
  /** Name and value pairs, as they came. */
  readonly headers: [string, string][];
  readonly bytes: Buffer;
}

/** What `requestAnswer` sends: a text body or none (JSON and form bodies are text). */
export interface TextRequest {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

// LINE's API is a handful of hosts asked again and again: connections are kept and reused. An
// idle connection is closed after 4 s (as undici's fetch does), before a server's own keep-alive
// timeout could close it under a request about to be written; a request in flight is not
// affected (its own timeout is the transport's).
const agentOptions = { keepAlive: true, timeout: 4_000 };
const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

/**
 * One request over node:http(s), its whole answer read into one buffer: an API call costs a
 * fraction of `fetch`'s CPU (no WHATWG streams, no Request and Headers objects on the way;
 * docs/PERFORMANCE.md). Resolves `undefined` when the answer is longer than `maxBytes` (refused
 * by its `content-length` before a byte is read, or cut off once it grows past it). Rejects when
 * `signal` aborts or the connection fails before the answer is complete; every error of the
 * request and the answer is handled here, so none escapes as an unhandled one.
 */
export function requestAnswer(
  url: URL,
  request: TextRequest,
  maxBytes: number,
  signal: AbortSignal,
): Promise<HttpAnswer | undefined> {
  return new Promise((resolve, reject) => {
    const protocol = url.protocol === 'https:' ? https : http;
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const outgoing = protocol.request(
      url,
      {
        method: request.method,
        headers: { ...request.headers, ...(body && { 'content-length': String(body.length) }) },
        agent: agents[url.protocol === 'https:' ? 'https:' : 'http:'],
        signal,
      },
      (answer) => {
        const declared = Number(answer.headers['content-length'] ?? NaN);
        if (Number.isSafeInteger(declared) && declared > maxBytes) {
          answer.destroy();
          resolve(undefined);
          return;
        }
        const chunks: Buffer[] = [];
        let total = 0;
        answer.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > maxBytes) {
            answer.destroy();
            resolve(undefined);
          } else chunks.push(chunk);
        });
        answer.on('end', () => {
          const headers: [string, string][] = [];
          for (let index = 0; index + 1 < answer.rawHeaders.length; index += 2)
            headers.push([answer.rawHeaders[index]!, answer.rawHeaders[index + 1]!]);
          resolve({
            status: answer.statusCode ?? 0,
            statusText: answer.statusMessage ?? '',
            headers,
            bytes: Buffer.concat(chunks, total),
          });
        });
        answer.on('error', reject);
        // Closed before its end (a dropped connection): the promise settles here at the latest.
        answer.on('close', () => {
          if (!answer.complete) reject(new Error('the connection closed before the answer was complete'));
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
