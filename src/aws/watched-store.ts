import type { InboxItem } from '../domain/index.js';
import {
  VersionConflictError,
  type ConversationStore,
  type SaveRequest,
  type StoredConversation,
} from '../persistence/index.js';
import { StoreFencedError } from './store-fenced-error.js';

/**
 * The store as one invocation's actor host sees it. It counts failures since the last
 * successful save — a save is progress; a read that works between two failed ones is not —
 * so the worker can stop waiting for a source that keeps failing (the host would retry it for
 * ever) and hand it to a scheduled retry instead. And it can be fenced, so that nothing the
 * host left running (a retry loop, a model answer arriving late) writes or reads once the
 * invocation has handed the source back.
 */
export class WatchedStore implements ConversationStore {
  private failuresSinceSave = 0;
  private fenced = false;
  private waiters: { threshold: number; resolve: () => void }[] = [];

  constructor(private readonly inner: ConversationStore) {}

  /** Resolves once `threshold` calls have failed with no successful save in between. */
  failing(threshold: number): Promise<void> {
    if (this.failuresSinceSave >= threshold) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ threshold, resolve }));
  }

  /** From now on every call fails at once. */
  fence(): void {
    this.fenced = true;
  }

  accept(message: InboxItem): Promise<boolean> {
    return this.watch(() => this.inner.accept(message));
  }
  inbox(sourceId: string): Promise<InboxItem[]> {
    return this.watch(() => this.inner.inbox(sourceId));
  }
  load(sourceId: string): Promise<StoredConversation | undefined> {
    return this.watch(() => this.inner.load(sourceId));
  }
  async save(request: SaveRequest): Promise<number> {
    const version = await this.watch(() => this.inner.save(request));
    this.failuresSinceSave = 0;
    return version;
  }
  sourcesWithWork(): Promise<string[]> {
    return this.watch(() => this.inner.sourcesWithWork());
  }
  listSources(): Promise<string[]> {
    return this.watch(() => this.inner.listSources());
  }
  deleteSource(sourceId: string): Promise<void> {
    return this.watch(() => this.inner.deleteSource(sourceId));
  }

  private async watch<T>(call: () => Promise<T>): Promise<T> {
    if (this.fenced) throw new StoreFencedError();
    try {
      return await call();
    } catch (error) {
      // Losing a version check is how optimistic concurrency works, not a failure.
      if (!VersionConflictError.isInstance(error)) this.recordFailure();
      throw error;
    }
  }

  private recordFailure() {
    this.failuresSinceSave++;
    const ready = this.waiters.filter((waiter) => waiter.threshold <= this.failuresSinceSave);
    this.waiters = this.waiters.filter((waiter) => waiter.threshold > this.failuresSinceSave);
    for (const waiter of ready) waiter.resolve();
  }
}
