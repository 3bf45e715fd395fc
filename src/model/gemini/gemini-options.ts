import { defaults } from '../../defaults/index.js';
import type { Clock } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import type { Sleep } from '../../timing/index.js';
import { minimumCacheTokens, type ThinkingLevel } from './gemini-models.js';

export type { Sleep } from '../../timing/index.js';

/**
 * Explicit context cache settings (docs/model.md): the system instruction and every tool declaration,
 * cached. Off by default: implicit caching is cheaper for kaiwa's prefix (docs/model.md).
 */
export interface GeminiCacheOptions {
  /**
   * Below this size (tokens, measured with `countTokens`) nothing is cached: Gemini refuses
   * caches under the model's minimum. Default: the model's minimum from Google's table.
   */
  readonly minTokens?: number;
  /** Lifetime asked for on create and on every refresh. Default 3600. */
  readonly ttlSeconds?: number;
  /** The TTL is extended once less than this much lifetime is left. Default 600. */
  readonly refreshBeforeSeconds?: number;
  /**
   * After a cache error, requests go uncached this long before a new cache is tried. Default
   * 600 000. A prefix found too small is never tried again.
   */
  readonly retryAfterMs?: number;
  /** Bound on one create, refresh or delete call. Default 5 000. */
  readonly operationTimeoutMs?: number;
}

/** Retries of one model call: 429, 5xx, network errors, timeouts and malformed bodies. */
export interface GeminiRetryOptions {
  /** Attempts in all, the first included. Default 4. */
  readonly maxAttempts?: number;
  /** The first backoff delay before jitter; it doubles per attempt. Default 500. */
  readonly initialDelayMs?: number;
  /** Cap of the backoff delay. Default 8 000. */
  readonly maxDelayMs?: number;
  /** A server asking to wait longer than this (a spent quota) ends the call at once. Default 60 000. */
  readonly maxServerDelayMs?: number;
  /** Timeout of one attempt; the turn's deadline shortens it. Default 60 000. */
  readonly attemptTimeoutMs?: number;
}

/**
 * Everything the Gemini adapter needs; nothing is read from `process.env` here (see
 * `geminiOptionsFromEnv` for that). Generation settings left unset are not sent: the model
 * uses its own (Gemini 3.6 Flash deprecates the sampling parameters).
 * @example
 * new GeminiModel({ apiKey, model: 'gemini-3.6-flash', thinkingLevel: 'low', logger })
 */
export interface GeminiModelOptions {
  /** Gemini Developer API key; with `vertex`, the optional Vertex AI express-mode key. */
  readonly apiKey?: string;
  /** Use Vertex AI instead of the Developer API (credentials: Application Default Credentials). */
  readonly vertex?: { readonly project?: string; readonly location?: string };
  /** Model name. Default: `defaults.gemini.model` (the README says which and why). */
  readonly model?: string;
  /** Overrides the API base URL (proxies, the tests' local server). */
  readonly baseUrl?: string;
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly maxOutputTokens?: number;
  /** Gemini 3 and later: how much the model thinks. Unset: the model's default. */
  readonly thinkingLevel?: ThinkingLevel;
  /** Gemini 2.5: thinking tokens per call; 0 turns thinking off (Flash), -1 lets the model decide. */
  readonly thinkingBudget?: number;
  /**
   * Bytes of inline media (base64, as sent) one request may carry; beyond it the oldest media are
   * left out with a note to the model. Default `defaults.gemini.maxInlineBytes`.
   */
  readonly maxInlineBytes?: number;
  /** Context cache settings, or `false` to never cache. */
  readonly cache?: GeminiCacheOptions | false;
  readonly retry?: GeminiRetryOptions;
  readonly logger?: Logger;
  /** Injected so tests assert delays and TTLs without waiting. */
  readonly clock?: Clock;
  readonly sleep?: Sleep;
  /** 0 ≤ random() < 1, for backoff jitter. */
  readonly random?: () => number;
}

export const DEFAULT_GEMINI_MODEL = defaults.gemini.model;

export type ResolvedCacheOptions = Required<GeminiCacheOptions>;
export type ResolvedRetryOptions = Required<GeminiRetryOptions>;

export function resolveCacheOptions(model: string, options: GeminiCacheOptions | false | undefined) {
  if (options === false) return undefined;
  return {
    minTokens: options?.minTokens ?? minimumCacheTokens(model),
    ttlSeconds: options?.ttlSeconds ?? defaults.gemini.cacheTtlSeconds,
    refreshBeforeSeconds: options?.refreshBeforeSeconds ?? defaults.gemini.cacheRefreshBeforeSeconds,
    retryAfterMs: options?.retryAfterMs ?? defaults.gemini.cacheRetryAfterMs,
    operationTimeoutMs: options?.operationTimeoutMs ?? defaults.gemini.cacheOperationTimeoutMs,
  } satisfies ResolvedCacheOptions;
}

export function resolveRetryOptions(options: GeminiRetryOptions | undefined): ResolvedRetryOptions {
  return {
    maxAttempts: Math.max(1, options?.maxAttempts ?? defaults.gemini.maxAttempts),
    initialDelayMs: options?.initialDelayMs ?? defaults.gemini.initialDelayMs,
    maxDelayMs: options?.maxDelayMs ?? defaults.gemini.maxDelayMs,
    maxServerDelayMs: options?.maxServerDelayMs ?? defaults.gemini.maxServerDelayMs,
    attemptTimeoutMs: options?.attemptTimeoutMs ?? defaults.gemini.attemptTimeoutMs,
  };
}
