import { HTTPFetchError, messagingApi } from '@line/bot-sdk';
import type { Readable } from 'node:stream';
import { defaults } from '../defaults/index.js';
import type { Attachment } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { MediaPort } from '../machines/index.js';

export interface LineMediaOptions {
  readonly client: messagingApi.MessagingApiBlobClient;
  readonly logger: Logger;
  /** Larger content is not given to the model (default 10 MiB). */
  readonly maxBytes?: number;
  /** Loaded images kept for the next model call of the same turn. */
  readonly cacheEntries?: number;
}

/**
 * Images for the model, downloaded with LINE's content API (`LINE_DATA_API_BASE_URL`). The
 * bytes live only in memory for the turn; history keeps the message id.
 */
export class LineMedia implements MediaPort {
  private readonly maxBytes: number;
  private readonly cacheEntries: number;
  private readonly cache = new Map<string, { mimeType: string; data: string } | undefined>();

  constructor(private readonly options: LineMediaOptions) {
    this.maxBytes = options.maxBytes ?? defaults.line.mediaMaxBytes;
    this.cacheEntries = options.cacheEntries ?? 32;
  }

  async load(
    attachment: Attachment,
    signal: AbortSignal,
  ): Promise<{ mimeType: string; data: string } | undefined> {
    if (attachment.kind !== 'image') return undefined;
    if (this.cache.has(attachment.messageId)) return this.cache.get(attachment.messageId);
    const loaded = await this.download(attachment.messageId, signal);
    this.cache.set(attachment.messageId, loaded);
    if (this.cache.size > this.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
    return loaded;
  }

  private async download(messageId: string, signal: AbortSignal) {
    const logger = this.options.logger.child({ messageId });
    try {
      const response = await this.options.client.getMessageContentWithHttpInfo(messageId);
      const mimeType = response.httpResponse.headers.get('content-type')?.split(';')[0] ?? 'image/jpeg';
      const declared = Number(response.httpResponse.headers.get('content-length') ?? 0);
      if (declared > this.maxBytes) {
        response.body.destroy();
        logger.warn('image too large for the model', { bytes: declared, maxBytes: this.maxBytes });
        return undefined;
      }
      const bytes = await readCapped(response.body, this.maxBytes, signal);
      if (!bytes) {
        logger.warn('image too large for the model', { maxBytes: this.maxBytes });
        return undefined;
      }
      return { mimeType, data: bytes.toString('base64') };
    } catch (error) {
      const status = error instanceof HTTPFetchError ? error.status : undefined;
      // 404/410: the content is gone (LINE keeps it for a limited time).
      logger.warn('image could not be downloaded', { status, ...(status === undefined && { error }) });
      return undefined;
    }
  }
}

/** Reads a stream up to `maxBytes`; undefined (and the stream destroyed) when it is longer. */
async function readCapped(
  stream: Readable,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    if (signal.aborted) {
      stream.destroy();
      throw signal.reason;
    }
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      stream.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
