import { createHash } from 'node:crypto';
import { ApiError, type Caches, type Tool } from '@google/genai';
import type { Clock } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import type { ResolvedCacheOptions } from './gemini-options.js';

/** What the cache holds: the persona and rules, and every tool declaration. */
export interface CachePrefix {
  readonly systemInstruction: string;
  readonly tools: readonly Tool[];
}

export type CacheApi = Pick<Caches, 'create' | 'update' | 'delete'>;

export interface GeminiContextCacheDependencies {
  readonly caches: CacheApi;
  readonly model: string;
  readonly options: ResolvedCacheOptions;
  readonly clock: Clock;
  readonly logger: Logger;
}

type CacheState =
  | { readonly status: 'none' }
  | { readonly status: 'ready'; readonly key: string; readonly name: string; readonly expiresAt: number }
  | {
      readonly status: 'failed';
      readonly key: string;
      readonly retryAt: number;
      readonly abandoned?: string;
    };

// A cache this close to its end is not used: the request might reach Gemini after it.
const EXPIRY_MARGIN_MS = 30_000;

/**
 * The Gemini context cache of one process: the system instruction and tool
 * declarations, cached with `ai.caches` once they reach the model's minimum size
 * (docs/design-notes.md, "Choosing tools per step").
 *
 * - Keyed by a hash of model + prompt + tools, so a deploy or registry change never uses a
 *   stale cache; the superseded cache is deleted.
 * - Its TTL is extended once less than `refreshBeforeSeconds` is left.
 * - On any cache error requests go uncached, and a new cache is tried `retryAfterMs` later.
 *
 * Lifetimes are counted on the injected clock from the moment a create or refresh was
 * sent, which is never later than Gemini's own count.
 */
export class GeminiContextCache {
  private state: CacheState = { status: 'none' };
  private creating: { readonly key: string; readonly done: Promise<void> } | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly dependencies: GeminiContextCacheDependencies) {}

  /** The cached content to use for this prefix, or `undefined` to send the prefix itself. */
  async cachedContentFor(prefix: CachePrefix): Promise<string | undefined> {
    const { options, clock } = this.dependencies;
    if (estimateTokens(prefix) < options.minTokens) return undefined;
    const key = cacheKey(this.dependencies.model, prefix);
    const state = this.state;
    const now = clock.now();
    if (state.status === 'ready' && state.key === key && now < state.expiresAt - EXPIRY_MARGIN_MS) {
      if (now >= state.expiresAt - options.refreshBeforeSeconds * 1000) await this.refresh(state);
    } else if (!(state.status === 'failed' && state.key === key && now < state.retryAt)) {
      await this.create(key, prefix);
    }
    return this.readyName(key);
  }

  /** A request that used `name` failed because of the cache: go uncached, recreate later. */
  markFailed(name: string, reason: string): void {
    const state = this.state;
    if (state.status !== 'ready' || state.name !== name) return;
    // It may still exist (a 400, or a 403 on a cache we may not use): deleted with the next create.
    this.fail(state.key, `use failed: ${reason}`, { abandoned: name });
  }

  private readyName(key: string): string | undefined {
    const state = this.state;
    return state.status === 'ready' && state.key === key ? state.name : undefined;
  }

  private create(key: string, prefix: CachePrefix): Promise<void> {
    // Concurrent turns share one creation instead of racing to make duplicates.
    if (this.creating?.key === key) return this.creating.done;
    const superseded = supersededName(this.state, key);
    const done = this.createNow(key, prefix, superseded).finally(() => {
      if (this.creating?.done === done) this.creating = undefined;
    });
    this.creating = { key, done };
    return done;
  }

  private async createNow(key: string, prefix: CachePrefix, superseded: string | undefined): Promise<void> {
    const { caches, model, options, clock, logger } = this.dependencies;
    const requestedAt = clock.now();
    try {
      const cache = await caches.create({
        model,
        config: {
          systemInstruction: prefix.systemInstruction,
          tools: [...prefix.tools],
          ttl: `${options.ttlSeconds}s`,
          displayName: `kaiwa-${key.slice(0, 16)}`,
          abortSignal: AbortSignal.timeout(options.operationTimeoutMs),
        },
      });
      if (!cache.name) throw new Error('the created cache has no name');
      this.state = {
        status: 'ready',
        key,
        name: cache.name,
        expiresAt: requestedAt + options.ttlSeconds * 1000,
      };
      logger.info('gemini context cache created', {
        cache: cache.name,
        key,
        estimatedTokens: estimateTokens(prefix),
      });
    } catch (error) {
      this.fail(key, 'create failed', { error });
    }
    if (superseded) await this.deleteQuietly(superseded);
  }

  private refresh(state: Extract<CacheState, { status: 'ready' }>): Promise<void> {
    this.refreshing ??= this.refreshNow(state).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refreshNow(state: Extract<CacheState, { status: 'ready' }>): Promise<void> {
    const { caches, options, clock, logger } = this.dependencies;
    const requestedAt = clock.now();
    try {
      await caches.update({
        name: state.name,
        config: {
          ttl: `${options.ttlSeconds}s`,
          abortSignal: AbortSignal.timeout(options.operationTimeoutMs),
        },
      });
      if (this.state === state) this.state = { ...state, expiresAt: requestedAt + options.ttlSeconds * 1000 };
      logger.debug('gemini context cache refreshed', { cache: state.name });
    } catch (error) {
      if (error instanceof ApiError && (error.status === 403 || error.status === 404)) {
        if (this.state === state) this.fail(state.key, 'refresh found it gone', { error });
      } else {
        // Still valid until it expires; the next call tries the refresh again.
        logger.warn('gemini context cache refresh failed', { cache: state.name, error });
      }
    }
  }

  private fail(key: string, reason: string, details: { error?: unknown; abandoned?: string } = {}): void {
    const { options, clock, logger } = this.dependencies;
    const { error, abandoned } = details;
    this.state = {
      status: 'failed',
      key,
      retryAt: clock.now() + options.retryAfterMs,
      ...(abandoned && { abandoned }),
    };
    logger.warn('gemini context cache unavailable; requests go uncached', {
      key,
      reason,
      retryInMs: options.retryAfterMs,
      ...(error !== undefined && { error }),
    });
  }

  private async deleteQuietly(name: string): Promise<void> {
    const { caches, options, logger } = this.dependencies;
    try {
      await caches.delete({ name, config: { abortSignal: AbortSignal.timeout(options.operationTimeoutMs) } });
      logger.info('gemini context cache deleted (superseded)', { cache: name });
    } catch (error) {
      // It expires on its own; deleting only saves its storage until then.
      logger.warn('gemini context cache delete failed', { cache: name, error });
    }
  }
}

/** The cache a new one for `key` replaces, to be deleted once the new one exists. */
function supersededName(state: CacheState, key: string): string | undefined {
  if (state.status === 'ready') return state.key === key ? undefined : state.name;
  return state.status === 'failed' ? state.abandoned : undefined;
}

/** Gemini counts roughly four characters per token in English; close enough to compare with a minimum. */
export function estimateTokens(prefix: CachePrefix): number {
  return Math.ceil((prefix.systemInstruction.length + JSON.stringify(prefix.tools).length) / 4);
}

/** Changes whenever the model, the prompt or any tool declaration changes. */
export function cacheKey(model: string, prefix: CachePrefix): string {
  return createHash('sha256')
    .update(JSON.stringify([model, prefix.systemInstruction, prefix.tools]))
    .digest('hex');
}
