import type { ActorHost } from '../actors/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { SourceStore } from '../persistence/source-store.js';

/** What one drain left behind. */
export interface DrainOutcome {
  /** Inbox keys still waiting after the drain. */
  readonly waiting: ReadonlySet<string>;
  /** A turn is still in progress (cut off, or another owner's): the source is not done. */
  readonly busy: boolean;
  /**
   * Why the drain ended: its host settled; or the time ran out — for a whole turn (`outOfTime`:
   * the source was released with its inbox waiting) or in the middle of one (`deadline`).
   */
  readonly ended: 'settled' | 'outOfTime' | 'deadline';
}

export interface DrainOptions {
  readonly store: SourceStore;
  /** A fresh actor host for this drain; it starts no turn that could not end by `deadlineAt`. */
  readonly createHost: () => ActorHost;
  /** When the drain must stop and persist (epoch ms). */
  readonly deadlineAt: number;
  /** Time kept after the deadline for the final persist and release (ms). */
  readonly persistMarginMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Drains one source's inbox the way `npm start` does: an actor host of the runtime takes the
 * source (ownership with a fence), runs its turns in order, checkpoints, releases it and reads
 * the inbox once more — until it settles or the deadline comes. The host is then shut down,
 * which persists and releases whatever is in progress. The store, not the host, then says
 * what is left: the queue's messages for items still waiting come back.
 */
export async function drainSource(sourceId: string, options: DrainOptions): Promise<DrainOutcome> {
  const { clock, logger } = options;
  const host = options.createHost();
  host.notify(sourceId);
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    host.whenSettled().then(() => 'settled' as const),
    new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), Math.max(0, options.deadlineAt - clock.now()));
    }),
  ]);
  clearTimeout(timer);
  const yielded = ended === 'settled' && host.lifecycleOf(sourceId)?.value === 'outOfTime';
  // Out of time, a delivery in flight gets a moment to finish (its marker saved) rather than be
  // resumed later; the rest of the margin is for persisting and releasing.
  const graceMs = ended === 'deadline' ? Math.floor(options.persistMarginMs / 4) : 0;
  if (!(await withinMs(host.shutdown(graceMs), Math.floor(options.persistMarginMs / 2)))) {
    // Its lease lapses by itself; whatever still runs finds its fence moved on.
    logger.error('persisting the source did not finish in time', { sourceId });
  }
  const [waiting, loaded] = await Promise.all([
    options.store.inbox(sourceId),
    // The head alone (an empty window reads no history).
    options.store.load(sourceId, { maxEntries: 0, maxBytes: 0 }),
  ]);
  return {
    waiting: new Set(waiting.map((stored) => stored.key)),
    busy: loaded.head?.busy === true,
    ended: yielded ? 'outOfTime' : ended,
  };
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
