import { ApiError, type Caches, type Models, type Tool } from '@google/genai';
import type { Clock } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import type { ResolvedCacheOptions } from './gemini-options.js';

/** What the cache holds: the persona and rules, and every tool declaration. */
export interface CachePrefix {
  readonly systemInstruction: string;
  readonly tools: readonly Tool[];
}

export type CacheApi = Pick<Caches, 'create' | 'update' | 'delete'>;
export type TokenApi = Pick<Models, 'countTokens'>;

export interface CacheMachineDependencies {
  readonly caches: CacheApi;
  readonly tokens: TokenApi;
  readonly model: string;
  readonly options: ResolvedCacheOptions;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The calls the cache machine makes to Gemini, each bounded by `operationTimeoutMs`. Lifetimes
 * are counted on the injected clock from the moment a create or refresh was sent, which is never
 * later than Gemini's own count.
 */
export function cacheOperations(dependencies: CacheMachineDependencies) {
  const { caches, tokens, model, options, clock, logger } = dependencies;
  const timeout = () => AbortSignal.timeout(options.operationTimeoutMs);

  async function deleteQuietly(name: string): Promise<void> {
    try {
      await caches.delete({ name, config: { abortSignal: timeout() } });
      logger.info('gemini context cache deleted (superseded)', { cache: name });
    } catch (error) {
      // It expires on its own; deleting only saves its storage until then.
      logger.warn('gemini context cache delete failed', { cache: name, error });
    }
  }

  return {
    /** The prefix's size in the model's tokens. */
    async countTokens(prefix: CachePrefix): Promise<number> {
      const counted = await tokens.countTokens({
        model,
        // The Developer API counts contents only: the prompt and the declarations as text.
        contents: [
          {
            role: 'user',
            parts: [{ text: prefix.systemInstruction }, { text: JSON.stringify(prefix.tools) }],
          },
        ],
        config: { abortSignal: timeout() },
      });
      if (counted.totalTokens === undefined) throw new Error('countTokens answered without totalTokens');
      return counted.totalTokens;
    },

    /** Makes the cache, then deletes the ones it replaces. */
    async create(
      key: string,
      prefix: CachePrefix,
      superseded: readonly string[],
    ): Promise<{ name: string; expiresAt: number }> {
      const requestedAt = clock.now();
      const cache = await caches.create({
        model,
        config: {
          systemInstruction: prefix.systemInstruction,
          tools: [...prefix.tools],
          ttl: `${options.ttlSeconds}s`,
          displayName: `kaiwa-${key.slice(0, 16)}`,
          abortSignal: timeout(),
        },
      });
      if (!cache.name) throw new Error('the created cache has no name');
      logger.info('gemini context cache created', {
        cache: cache.name,
        key,
        tokens: cache.usageMetadata?.totalTokenCount,
      });
      for (const name of superseded) await deleteQuietly(name);
      return { name: cache.name, expiresAt: requestedAt + options.ttlSeconds * 1000 };
    },

    /** Extends the TTL; resolves to the new end. */
    async refresh(name: string): Promise<number> {
      const requestedAt = clock.now();
      await caches.update({ name, config: { ttl: `${options.ttlSeconds}s`, abortSignal: timeout() } });
      logger.debug('gemini context cache refreshed', { cache: name });
      return requestedAt + options.ttlSeconds * 1000;
    },
  };
}

/** Gemini's 400 for a cache under the model's minimum ("Cached content is too small…"). */
export function isTooSmallError(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 400 &&
    /too small|min_total_token_count/i.test(error.message)
  );
}

/** The cache does not exist (any more), or is not ours. */
export function isGoneError(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 403 || error.status === 404);
}
