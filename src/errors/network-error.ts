/** Node.js's codes for a connection that failed or dropped: nothing was answered. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);

/**
 * Whether `error` says the network failed (a refused, reset or unreachable connection) rather
 * than the service answering: its `code`, or its cause's — undici reports every connection
 * failure as `TypeError: fetch failed` with the cause attached, or with an `UND_ERR_` code.
 */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_'))) return true;
  return error instanceof TypeError && error.message === 'fetch failed';
}
