import { ResponseTooLargeError } from './response-too-large-error.js';

/**
 * Reads a fetch response's body as UTF-8 text, stopping as soon as it passes `maxBytes`,
 * so a misbehaving server cannot make a tool buffer megabytes: a declared
 * `Content-Length` over the limit is refused before reading, and a chunked body is cut off
 * mid-stream.
 */
export async function readBodyWithLimit(response: Response, maxBytes: number): Promise<string> {
  const declaredLength = Number(response.headers.get('content-length') ?? 0);
  if (declaredLength > maxBytes) {
    await response.body?.cancel();
    throw new ResponseTooLargeError(maxBytes);
  }
  if (!response.body) return '';
  // The typings leave the chunk type open; a fetch body is a byte stream, and checked to be one.
  const body: ReadableStream<unknown> = response.body;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!(value instanceof Uint8Array)) throw new TypeError('the response body is not a byte stream');
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      throw new ResponseTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}
