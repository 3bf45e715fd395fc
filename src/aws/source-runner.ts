import type { ActorHost } from '../actors/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { ConversationStore } from '../persistence/index.js';
import type { SourceLeases } from './source-lease.js';
import { WatchedStore } from './watched-store.js';

/** What became of one source in one invocation. */
export type SourceOutcome =
  /** Everything this trigger could see is done and persisted. */
  | { readonly kind: 'settled' }
  /** Work is left (the invocation's time ran out, or the source kept failing): it is persisted, retry later. */
  | { readonly kind: 'unfinished'; readonly failing: boolean }
  /** Another worker holds the source until `heldUntil`: it runs the inbox; look again after that. */
  | { readonly kind: 'leased'; readonly heldUntil: number };

export interface SourceRunnerOptions {
  readonly store: ConversationStore;
  readonly leases: SourceLeases;
  /** An actor host for one source and one invocation, on the given (watched) store. */
  readonly createHost: (store: ConversationStore, turnDeadlineMs: number) => ActorHost;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Store failures with no successful save between before the source is handed back (the host would retry for ever). */
  readonly sourceAttempts: number;
  /** Time kept after the deadline: half for the final persist, half for the retry schedule and the lease (ms). */
  readonly persistMarginMs: number;
  /** How long to wait for another holder's lease before deferring (ms). */
  readonly leaseWaitMs: number;
  /** The longest turn deadline (the configuration's `KAIWA_TURN_DEADLINE_MS`). */
  readonly turnDeadlineMs: number;
}

/**
 * Runs one source's inbox until it is settled, keeps failing, or `deadlineAt` comes: takes
 * the source's lease, lets an actor host of its own drain the inbox (restore → turns →
 * conditional saves), then shuts the host down, which persists a turn still in progress. A
 * restored snapshot resumes that turn later; the inbox, not this call, says what is left.
 */
export async function runSource(
  sourceId: string,
  deadlineAt: number,
  options: SourceRunnerOptions,
): Promise<SourceOutcome> {
  const { clock, logger } = options;
  const leaseUntil = deadlineAt + options.persistMarginMs;
  const lease = await options.leases.acquire(
    sourceId,
    leaseUntil,
    Math.min(clock.now() + options.leaseWaitMs, deadlineAt),
  );
  if (!lease.acquired) return { kind: 'leased', heldUntil: lease.heldUntil };

  const store = new WatchedStore(options.store);
  let handBack = true;
  try {
    const turnDeadlineMs = Math.max(1000, Math.min(options.turnDeadlineMs, deadlineAt - clock.now()));
    const host = options.createHost(store, turnDeadlineMs);
    host.notify(sourceId);
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      host.whenSettled().then(() => 'settled' as const),
      store.failing(options.sourceAttempts).then(() => 'failing' as const),
      new Promise<'deadline'>((resolve) => {
        timer = setTimeout(() => resolve('deadline'), Math.max(0, deadlineAt - clock.now()));
      }),
    ]);
    clearTimeout(timer);
    if (ended !== 'settled') logger.warn('source handed back unfinished', { sourceId, reason: ended });

    // Persists what is in progress. Out of time, a delivery in flight gets a moment to finish
    // (its marker saved) rather than be resent later; half the margin stays for the retry
    // schedule and the lease. A store that keeps failing could hold this for ever: bounded.
    const graceMs = ended === 'deadline' ? Math.floor(options.persistMarginMs / 4) : 0;
    const stopped = await withinMs(host.shutdown(graceMs), Math.floor(options.persistMarginMs / 2));
    if (!stopped) {
      // Keep the lease until it lapses: whatever is still running finds the store fenced off.
      handBack = false;
      logger.error('persisting the source did not finish in time', { sourceId });
      return { kind: 'unfinished', failing: true };
    }
    // Settled is not done: a source another owner held is left to it, and it may have died.
    const workLeft = await hasWork(options.store, sourceId).catch(() => true);
    return workLeft ? { kind: 'unfinished', failing: ended === 'failing' } : { kind: 'settled' };
  } finally {
    store.fence(); // whatever this host left running cannot touch the source any more
    if (handBack) {
      await options.leases.release(sourceId).catch((error: unknown) => {
        logger.warn('could not release the lease; it lapses by itself', { sourceId, error });
      });
    }
  }
}

/** Waiting messages, or a conversation saved in the middle of a turn. */
async function hasWork(store: ConversationStore, sourceId: string): Promise<boolean> {
  if ((await store.inbox(sourceId)).length > 0) return true;
  return (await store.load(sourceId))?.busy === true;
}

async function withinMs(work: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    work.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return inTime;
}
