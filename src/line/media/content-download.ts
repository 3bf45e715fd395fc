import { LineRequestError, type NoAnswerReason } from '../line-request-error.js';
import type { LineTransport } from '../line-transport.js';
import { readCapped } from '../read-capped.js';
import { looksLike } from './media-signature.js';

/** What a download needs besides the URL. */
export interface ContentDownloadOptions {
  readonly headers: Record<string, string>;
  /** The whole download, body included, ends after this long (ms). */
  readonly timeoutMs: number;
  /** A larger body is refused (and not read further). */
  readonly maxBytes: number;
  /** Media types (`image/jpeg`) accepted; the body's first bytes must match the type too. */
  readonly allowedTypes: ReadonlySet<string>;
  /** The turn's signal: the download ends when the turn does. */
  readonly signal: AbortSignal;
}

/** Why content was left out. */
export type RefusalReason = NoAnswerReason | 'status' | 'content-type';

export type DownloadOutcome =
  | { readonly ok: true; readonly mimeType: string; readonly bytes: Buffer; readonly requestId?: string }
  | {
      readonly ok: false;
      readonly reason: RefusalReason;
      readonly status?: number;
      /** The declared type, when it is a plain `type/subtype` (anything else could be content). */
      readonly contentType?: string;
      readonly requestId?: string;
    };

/**
 * Downloads one piece of content through the LINE transport, hardened: a timeout over the whole
 * body, the turn's signal, a byte cap, an allowlist of media types checked against the bytes
 * themselves. Never throws: a dropped connection, a slow server or a refusal is an outcome, so
 * the turn goes on without the image (docs/security.md).
 */
export async function downloadContent(
  transport: LineTransport,
  url: URL,
  options: ContentDownloadOptions,
): Promise<DownloadOutcome> {
  let answer;
  try {
    answer = await transport.open(url, {
      headers: options.headers,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
  } catch (error) {
    return { ok: false, reason: LineRequestError.isInstance(error) ? error.reason : 'network' };
  }
  const { response, requestId } = answer;
  const refuse = async (reason: RefusalReason, extra: { status?: number; contentType?: string } = {}) => {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false as const, reason, ...extra, ...(requestId && { requestId }) };
  };
  if (!response.ok) return refuse('status', { status: response.status });
  const mimeType = mediaTypeOf(response.headers.get('content-type'));
  const contentType =
    mimeType && /^[a-z0-9.+-]{1,40}\/[a-z0-9.+-]{1,60}$/.test(mimeType) ? mimeType : undefined;
  if (!mimeType || !options.allowedTypes.has(mimeType)) {
    return refuse('content-type', { ...(contentType && { contentType }) });
  }
  let bytes: Buffer | undefined;
  try {
    bytes = await readCapped(response, options.maxBytes);
  } catch {
    return { ok: false, reason: answer.stopReason(), ...(requestId && { requestId }) };
  }
  if (!bytes) return { ok: false, reason: 'too-large', ...(requestId && { requestId }) };
  if (!looksLike(mimeType, bytes)) {
    return { ok: false, reason: 'content-type', contentType: mimeType, ...(requestId && { requestId }) };
  }
  return { ok: true, mimeType, bytes, ...(requestId && { requestId }) };
}

/** `image/PNG; charset=x` → `image/png`. */
function mediaTypeOf(header: string | null): string | undefined {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  return type || undefined;
}
