import { createHash } from 'node:crypto';
import { createActor, waitFor, type Actor } from 'xstate';
import {
  createCacheMachine,
  usableCache,
  type CacheMachine,
  type CacheMachineDependencies,
  type CachePrefix,
} from './gemini-cache-machine.js';

export type { CacheApi, CachePrefix, TokenApi } from './gemini-cache-machine.js';

/**
 * The Gemini context cache of one process (docs/model.md, "Context cache"): the system
 * instruction and every tool declaration, cached with `ai.caches` once `countTokens` finds them
 * at the model's minimum. Its lifecycle is {@link createCacheMachine}; this is the request side.
 *
 * - Keyed by a hash of model + prompt + tools, so a deploy or registry change never uses a
 *   stale cache; the superseded cache is deleted once the new one exists.
 * - {@link use} never waits: it answers from the current state and starts any work beside.
 */
export class GeminiContextCache {
  private readonly actor: Actor<CacheMachine>;
  private readonly model: string;
  private readonly now: () => number;

  constructor(dependencies: CacheMachineDependencies) {
    this.model = dependencies.model;
    this.now = () => dependencies.clock.now();
    this.actor = createActor(createCacheMachine(dependencies)).start();
  }

  /**
   * The cached content to use for this prefix now, or `undefined` to send the prefix itself.
   * Starts creating or refreshing the cache beside the request when that is due.
   */
  use(prefix: CachePrefix): string | undefined {
    const key = cacheKey(this.model, prefix);
    const now = this.now();
    this.actor.send({ type: 'prefix.used', key, prefix, now });
    return usableCache(this.actor.getSnapshot(), key, now);
  }

  /** A request that used `name` failed because of the cache: go uncached, recreate later. */
  markFailed(name: string, reason: string): void {
    this.actor.send({ type: 'cache.broken', name, reason, now: this.now() });
  }

  /** Resolves once no count, create or refresh is running (tests; an orderly stop). */
  async idle(): Promise<void> {
    await waitFor(this.actor, (snapshot) => snapshot.matches('uncached') || snapshot.matches('ready'));
  }
}

/** Changes whenever the model, the prompt or any tool declaration changes. */
export function cacheKey(model: string, prefix: CachePrefix): string {
  return createHash('sha256')
    .update(JSON.stringify([model, prefix.systemInstruction, prefix.tools]))
    .digest('hex');
}
