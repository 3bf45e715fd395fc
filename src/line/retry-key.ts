import { createHash } from 'node:crypto';

/**
 * The `X-Line-Retry-Key` of a turn's n-th delivery: a UUID derived from the turn, so a push
 * retried after a crash or a timeout carries the same key and LINE delivers it once.
 */
export function retryKeyFor(turnId: string, index: number): string {
  const hex = createHash('sha256').update(`kaiwa:${turnId}:${index}`).digest('hex');
  // Shaped as a version-5-style UUID: LINE requires the UUID format.
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
