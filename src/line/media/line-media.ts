import { DEFAULT_MEDIA_TYPES } from '../../config/index.js';
import type { Attachment } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import type { MediaPort } from '../../machines/index.js';
import type { LineTransport } from '../line-transport.js';
import { downloadContent } from './content-download.js';
import { DownloadSlots } from './download-slots.js';
import { voiceMessageTypes } from './media-signature.js';
import { MediaCache } from './media-cache.js';

export interface LineMediaOptions {
  /** Every download goes through it (timeouts, signals, request ids in the log). */
  readonly transport: LineTransport;
  /** `LINE_DATA_API_BASE_URL`: where the content API is. */
  readonly dataApiBaseUrl: string;
  readonly channelAccessToken: string;
  readonly logger: Logger;
  /** Larger content is not given to the model (default 10 MiB). */
  readonly maxBytes?: number;
  /** One download, body included, ends after this long (ms; default 20 s). */
  readonly timeoutMs?: number;
  /** Downloads at once (default 4); the others wait. */
  readonly concurrency?: number;
  /** Bytes of loaded images kept for the next model call of the same turn (default 32 MiB). */
  readonly cacheBytes?: number;
  /** How long (ms) a loaded image is kept (default 2 min). */
  readonly cacheTtlMs?: number;
  /** Media types accepted (`KAIWA_MEDIA_TYPES`; default JPEG, PNG and WebP). */
  readonly mediaTypes?: readonly string[];
  readonly now?: () => number;
}

type LoadedMedia = { mimeType: string; data: string };

const voiceTypes: ReadonlySet<string> = new Set(voiceMessageTypes);

/**
 * Images and voice messages for the model, from LINE's content API through one hardened download (timeout, the
 * turn's signal, byte cap, media-type allowlist, bounded concurrency) and a cache bounded by bytes
 * and age. The bytes live only in memory for the turn; history keeps the message id. An image
 * that cannot be had is left out — the turn goes on and the model sees the `[image]` note.
 */
export class LineMedia implements MediaPort {
  private readonly slots: DownloadSlots;
  private readonly cache: MediaCache<LoadedMedia | undefined>;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly mediaTypes: ReadonlySet<string>;

  constructor(private readonly options: LineMediaOptions) {
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.timeoutMs = options.timeoutMs ?? 20_000;
    this.mediaTypes = new Set(options.mediaTypes ?? DEFAULT_MEDIA_TYPES);
    this.slots = new DownloadSlots(options.concurrency ?? 4);
    this.cache = new MediaCache({
      maxBytes: options.cacheBytes ?? 32 * 1024 * 1024,
      ttlMs: options.cacheTtlMs ?? 120_000,
      ...(options.now && { now: options.now }),
    });
  }

  /** Downloads running and waiting, and the cache's size: for tests and the inspector. */
  stats() {
    return { active: this.slots.active, queued: this.slots.queued, cachedBytes: this.cache.totalBytes };
  }

  async load(attachment: Attachment, signal: AbortSignal): Promise<LoadedMedia | undefined> {
    if (attachment.kind !== 'image' && attachment.kind !== 'audio') return undefined;
    const cached = this.cache.get(attachment.messageId);
    if (cached) return cached.value;
    const loaded = await this.download(attachment.messageId, attachment.kind, signal);
    // A turn that ended mid-download proves nothing about the image: the next one tries again.
    // A refusal is remembered (a few bytes), so later model calls of the turn do not ask again.
    if (!signal.aborted) this.cache.set(attachment.messageId, loaded, loaded ? loaded.data.length : 64);
    return loaded;
  }

  private async download(
    messageId: string,
    kind: 'image' | 'audio',
    signal: AbortSignal,
  ): Promise<LoadedMedia | undefined> {
    const logger = this.options.logger.child({ messageId, kind });
    const url = new URL(
      `/v2/bot/message/${encodeURIComponent(messageId)}/content`,
      this.options.dataApiBaseUrl,
    );
    let outcome;
    try {
      outcome = await this.slots.run(signal, () =>
        downloadContent(this.options.transport, url, {
          headers: { authorization: `Bearer ${this.options.channelAccessToken}` },
          timeoutMs: this.timeoutMs,
          maxBytes: this.maxBytes,
          allowedTypes: kind === 'audio' ? voiceTypes : this.mediaTypes,
          signal,
        }),
      );
    } catch {
      logger.debug(`${kind} left out: the turn ended while it waited for a download slot`);
      return undefined;
    }
    if (outcome.ok) {
      // m4a goes by several names; Gemini is given the one it documents.
      const mimeType = kind === 'audio' ? 'audio/mp4' : outcome.mimeType;
      return { mimeType, data: outcome.bytes.toString('base64') };
    }
    const { ok: _ok, reason, ...fields } = outcome;
    // 404/410: the content is gone (LINE keeps it for a limited time); aborted: the turn ended.
    const level = reason === 'aborted' ? 'debug' : 'warn';
    logger[level](`${kind} left out`, {
      reason,
      ...fields,
      ...(reason === 'too-large' && { maxBytes: this.maxBytes }),
      ...(reason === 'timeout' && { timeoutMs: this.timeoutMs }),
    });
    return undefined;
  }
}
