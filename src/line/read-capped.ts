/**
 * Reads an answer's body up to `maxBytes`; `undefined` (and the rest of the body cancelled) when
 * it is longer. With a `content-length` it refuses an oversized body before reading a byte and
 * reads into one buffer of that size, so a 10 MB image costs 10 MB, not chunks plus their copy.
 * Rejects when the body fails mid-way (a dropped connection, a timeout): the caller awaits it, so
 * the failure is the caller's to handle and never an unhandled rejection.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  const declared = declaredLength(response);
  if (declared !== undefined && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const target = declared === undefined ? undefined : Buffer.allocUnsafe(declared);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > (target?.length ?? maxBytes)) {
      await reader.cancel().catch(() => undefined);
      if (target && total + value.byteLength <= maxBytes)
        throw new Error('body longer than its content-length');
      return undefined;
    }
    if (target) target.set(value, total);
    else chunks.push(value);
    total += value.byteLength;
  }
  return target ? target.subarray(0, total) : Buffer.concat(chunks, total);
}

function declaredLength(response: Response): number | undefined {
  const header = response.headers.get('content-length');
  const length = header === null ? NaN : Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
