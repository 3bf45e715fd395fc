import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import {
  cacheOperations,
  isGoneError,
  isTooSmallError,
  type CacheMachineDependencies,
  type CachePrefix,
} from './gemini-cache-operations.js';

export type { CacheApi, CacheMachineDependencies, CachePrefix, TokenApi } from './gemini-cache-operations.js';

/** A request used the prefix `key` (hash of model, prompt and declarations) at `now`. */
export type CacheEvent =
  | { readonly type: 'prefix.used'; readonly key: string; readonly prefix: CachePrefix; readonly now: number }
  /** A request that used cache `name` failed because of it (gone, expired, not ours). */
  | { readonly type: 'cache.broken'; readonly name: string; readonly reason: string; readonly now: number };

export interface CacheContext {
  /** The prefix the cache is (being) made for. */
  readonly key: string | undefined;
  readonly prefix: CachePrefix | undefined;
  /** The cache while it is ready, and when it ends (on the injected clock). */
  readonly name: string | undefined;
  readonly expiresAt: number;
  /** Token counts by prefix key: `countTokens` runs once per prefix. */
  readonly measured: Readonly<Record<string, number>>;
  /** Prefixes below the model's minimum: never tried again. */
  readonly tooSmall: readonly string[];
  /** After a failure, no new try for `key` before this. */
  readonly retryAt: number;
  /** Caches a new one replaces, deleted once it exists. */
  readonly superseded: readonly string[];
}

// A cache this close to its end is not used: the request might reach Gemini after it.
const EXPIRY_MARGIN_MS = 30_000;
// Prefixes remembered (measured or too small): a deploy changes the prefix now and then, not per request.
const REMEMBERED_PREFIXES = 16;

/**
 * The explicit context cache of one process as a state machine (docs/model.md, "Context
 * cache"). Requests only send `prefix.used` and read the snapshot: counting, creating,
 * refreshing and deleting run in invoked actors beside them, so no request ever waits for the
 * cache — it uses one only once it is `ready`.
 *
 * - `uncached` → `checking` when a request uses a prefix not known too small and not waiting
 *   out a failure; `measuring` asks `countTokens` once per prefix; a prefix below the model's
 *   minimum is remembered and never tried again (Gemini would answer 400 every time).
 * - `creating` makes the cache and deletes the ones it supersedes; any other failure waits
 *   `retryAfterMs` before the next try.
 * - `ready` → `refreshing` once less than `refreshBeforeSeconds` is left; an expired cache or
 *   a changed prefix goes back to `checking`; a request that found the cache broken sends
 *   `cache.broken`.
 *
 * Time comes from the events (the injected clock), never from timers: a cache is looked after
 * while requests come, and left to expire when they stop. The calls themselves are in
 * `gemini-cache-operations.ts`.
 */
export function createCacheMachine(dependencies: CacheMachineDependencies) {
  const { options, clock, logger } = dependencies;
  const operations = cacheOperations(dependencies);

  return setup({
    types: {
      context: {} as CacheContext,
      events: {} as CacheEvent,
    },
    actors: {
      countTokens: fromPromise<number, { prefix: CachePrefix }>(({ input }) =>
        operations.countTokens(input.prefix),
      ),
      create: fromPromise<
        { name: string; expiresAt: number },
        { key: string; prefix: CachePrefix; superseded: readonly string[] }
      >(({ input }) => operations.create(input.key, input.prefix, input.superseded)),
      refresh: fromPromise<number, { name: string }>(({ input }) => operations.refresh(input.name)),
    },
    guards: {
      knownTooSmall: ({ context, event }) =>
        event.type === 'prefix.used' && context.tooSmall.includes(event.key),
      waitingToRetry: ({ context, event }) =>
        event.type === 'prefix.used' && event.key === context.key && event.now < context.retryAt,
      notMeasured: ({ context }) => context.measured[context.key!] === undefined,
      belowMinimum: ({ context }) => context.measured[context.key!]! < options.minTokens,
      otherPrefix: ({ context, event }) => event.type === 'prefix.used' && event.key !== context.key,
      expired: ({ context, event }) => event.now >= context.expiresAt - EXPIRY_MARGIN_MS,
      refreshDue: ({ context, event }) =>
        event.now >= context.expiresAt - options.refreshBeforeSeconds * 1000,
      isOurs: ({ context, event }) => event.type === 'cache.broken' && event.name === context.name,
      refusedAsTooSmall: ({ event }) => isTooSmallError((event as { error?: unknown }).error),
      gone: ({ event }) => isGoneError((event as { error?: unknown }).error),
    },
    actions: {
      adoptPrefix: assign(({ context, event }) =>
        event.type === 'prefix.used'
          ? { key: event.key, prefix: event.prefix, retryAt: event.key === context.key ? context.retryAt : 0 }
          : {},
      ),
      supersede: assign(({ context }) => ({
        superseded: context.name ? [...context.superseded, context.name] : context.superseded,
        name: undefined,
      })),
      forgetExpired: assign({ name: undefined }),
      rememberTooSmall: assign(({ context }) => {
        logger.info("gemini context cache not made: the prefix is below the model's minimum", {
          key: context.key,
          tokens: context.measured[context.key!],
          minTokens: options.minTokens,
        });
        return {
          tooSmall: [...context.tooSmall, context.key!].slice(-REMEMBERED_PREFIXES),
          prefix: undefined,
        };
      }),
      fail: assign(({ context, event }, params: { reason: string }) => {
        const error = (event as { error?: unknown }).error;
        logger.warn('gemini context cache unavailable; requests go uncached', {
          key: context.key,
          reason: params.reason,
          retryInMs: options.retryAfterMs,
          ...(error !== undefined && { error }),
        });
        return { retryAt: clock.now() + options.retryAfterMs, name: undefined };
      }),
    },
  }).createMachine({
    id: 'geminiContextCache',
    context: {
      key: undefined,
      prefix: undefined,
      name: undefined,
      expiresAt: 0,
      measured: {},
      tooSmall: [],
      retryAt: 0,
      superseded: [],
    },
    initial: 'uncached',
    states: {
      uncached: {
        on: {
          'prefix.used': [
            { guard: 'knownTooSmall' },
            { guard: 'waitingToRetry' },
            { target: 'checking', actions: 'adoptPrefix' },
          ],
        },
      },
      checking: {
        always: [
          { guard: 'notMeasured', target: 'measuring' },
          { guard: 'belowMinimum', target: 'uncached', actions: 'rememberTooSmall' },
          { target: 'creating' },
        ],
      },
      measuring: {
        invoke: {
          src: 'countTokens',
          input: ({ context }) => ({ prefix: context.prefix! }),
          onDone: {
            target: 'checking',
            actions: assign(({ context, event }) => ({
              measured: remember(context.measured, context.key!, event.output),
            })),
          },
          onError: {
            target: 'uncached',
            actions: { type: 'fail', params: { reason: 'countTokens failed' } },
          },
        },
      },
      creating: {
        invoke: {
          src: 'create',
          input: ({ context }) => ({
            key: context.key!,
            prefix: context.prefix!,
            superseded: context.superseded,
          }),
          onDone: {
            target: 'ready',
            actions: assign(({ event }) => ({
              name: event.output.name,
              expiresAt: event.output.expiresAt,
              superseded: [],
            })),
          },
          onError: [
            { guard: 'refusedAsTooSmall', target: 'uncached', actions: 'rememberTooSmall' },
            { target: 'uncached', actions: { type: 'fail', params: { reason: 'create failed' } } },
          ],
        },
      },
      ready: {
        on: {
          'prefix.used': [
            { guard: 'otherPrefix', target: 'checking', actions: ['supersede', 'adoptPrefix'] },
            { guard: 'expired', target: 'checking', actions: 'forgetExpired' },
            { guard: 'refreshDue', target: 'refreshing' },
          ],
          'cache.broken': {
            guard: 'isOurs',
            target: 'uncached',
            actions: [
              'supersede',
              { type: 'fail', params: ({ event }) => ({ reason: `use failed: ${event.reason}` }) },
            ],
          },
        },
      },
      refreshing: {
        invoke: {
          src: 'refresh',
          input: ({ context }) => ({ name: context.name! }),
          onDone: { target: 'ready', actions: assign(({ event }) => ({ expiresAt: event.output })) },
          onError: [
            {
              guard: 'gone',
              target: 'uncached',
              actions: { type: 'fail', params: { reason: 'refresh found it gone' } },
            },
            {
              // Still valid until it expires; the next request past the refresh point tries again.
              target: 'ready',
              actions: ({ context, event }) =>
                logger.warn('gemini context cache refresh failed', {
                  cache: context.name,
                  error: event.error,
                }),
            },
          ],
        },
        on: {
          'cache.broken': {
            guard: 'isOurs',
            target: 'uncached',
            actions: [
              'supersede',
              { type: 'fail', params: ({ event }) => ({ reason: `use failed: ${event.reason}` }) },
            ],
          },
        },
      },
    },
  });
}

export type CacheMachine = ReturnType<typeof createCacheMachine>;

/** The cache a request may use now for prefix `key`: ready, for that prefix, not about to end. */
export function usableCache(
  snapshot: SnapshotFrom<CacheMachine>,
  key: string,
  now: number,
): string | undefined {
  const { context } = snapshot;
  const live = snapshot.matches('ready') || snapshot.matches('refreshing');
  return live && context.key === key && now < context.expiresAt - EXPIRY_MARGIN_MS ? context.name : undefined;
}

function remember(measured: Readonly<Record<string, number>>, key: string, tokens: number) {
  return Object.fromEntries(
    [...Object.entries(measured), [key, tokens] as const].slice(-REMEMBERED_PREFIXES),
  );
}
