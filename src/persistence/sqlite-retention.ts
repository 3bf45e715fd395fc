import type { Clock } from '../domain/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import type { HistoryWindow } from './source-store.js';

/**
 * What the SQLite store keeps of a conversation (docs/persistence.md, "Retention on SQLite"):
 * DynamoDB lets its TTL delete; on SQLite a sweep over every source does it.
 */
export interface SqliteRetentionOptions {
  /** The window a load returns: a history that spans more than twice it is compacted to it. */
  readonly window: HistoryWindow;
  /** A conversation idle this long (ms) is deleted, as on unfollow; 0 keeps conversations. */
  readonly conversationTtlMs: number;
  /** From the start of one sweep to the start of the next (ms; default 1 hour). */
  readonly sweepIntervalMs?: number;
  /** Before the first sweep after opening (ms; default 1 minute). */
  readonly firstSweepAfterMs?: number;
  /** Where a failed sweep is reported. */
  readonly logger?: Logger;
}

/** What the sweep reads of one source (its head, and whether history and inbox have rows). */
export interface RetentionRow {
  readonly source_id: string;
  readonly version: number;
  readonly owner_id: string | null;
  readonly heartbeat_at: number | null;
  readonly lease_ms: number | null;
  readonly busy: number;
  readonly updated_at: number;
  readonly last_seq: number;
  readonly has_snapshot: number;
  readonly has_inbox: number;
  /** The lowest `seq` stored; null without history. */
  readonly oldest_seq: number | null;
}

/** The store as the sweep uses it: a page of sources, and its two writes. */
export interface RetentionTarget {
  /** Up to `limit` sources after `sourceId`, in id order. */
  sourcesAfter(sourceId: string, limit: number): RetentionRow[];
  /** Deletes an idle conversation as an unfollow would, if nothing wrote since `row`; true when it did. */
  expire(row: RetentionRow): boolean;
  /** Deletes the history below the window; returns how many entries went. */
  compact(sourceId: string, window: HistoryWindow): number;
}

export type RetentionStep = 'expire' | 'compact' | 'keep';

/**
 * What the sweep does with one source. Idle means: no write for the TTL, no turn under way,
 * nothing in the inbox, and no owner (or one whose lease ran out a TTL ago).
 */
export function retentionStep(
  row: RetentionRow,
  now: number,
  options: SqliteRetentionOptions,
): RetentionStep {
  const ttl = options.conversationTtlMs;
  if (ttl > 0 && row.has_snapshot === 1 && row.busy === 0 && row.has_inbox === 0) {
    const cutoff = now - ttl;
    const ownerGone = row.owner_id === null || (row.heartbeat_at ?? 0) + (row.lease_ms ?? 0) <= cutoff;
    if (row.updated_at <= cutoff && ownerGone) return 'expire';
  }
  // Compacted when it spans twice the window, so a sweep finds most sources with nothing to do.
  if (row.oldest_seq !== null && row.last_seq - row.oldest_seq + 1 > 2 * options.window.maxEntries)
    return 'compact';
  return 'keep';
}

/** How many sources one step of a sweep reads before it lets other work run. */
const SOURCES_PER_STEP = 100;
const DEFAULT_SWEEP_INTERVAL_MS = 3_600_000;

/**
 * Walks every source of the store now and then, in steps of a hundred with other work in
 * between, and expires or compacts each as `retentionStep` says. Each write is one
 * transaction; a failed sweep is logged and the next one runs on schedule.
 */
export class RetentionSweep {
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly logger: Logger;

  constructor(
    private readonly target: RetentionTarget,
    private readonly options: SqliteRetentionOptions,
    private readonly clock: Clock,
  ) {
    this.logger = options.logger ?? silentLogger;
  }

  /** Schedules the sweeps: the first one soon after opening, then one per interval. */
  start(): void {
    this.schedule(this.options.firstSweepAfterMs ?? 60_000);
  }

  /** No sweep starts after this, and one under way stops before its next step. */
  stop(): void {
    this.stopping.abort();
    clearTimeout(this.timer);
  }

  /** One whole pass over every source. */
  async sweep(): Promise<{ expired: number; compactedEntries: number }> {
    let expired = 0;
    let compactedEntries = 0;
    let after = '';
    while (!this.stopping.signal.aborted) {
      const rows = this.target.sourcesAfter(after, SOURCES_PER_STEP);
      if (rows.length === 0) break;
      const now = this.clock.now();
      for (const row of rows) {
        const step = retentionStep(row, now, this.options);
        if (step === 'expire' && this.target.expire(row)) expired++;
        else if (step === 'compact')
          compactedEntries += this.target.compact(row.source_id, this.options.window);
      }
      after = rows.at(-1)!.source_id;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (expired > 0 || compactedEntries > 0)
      this.logger.info('idle conversations expired and old history compacted', { expired, compactedEntries });
    return { expired, compactedEntries };
  }

  private schedule(delayMs: number) {
    if (this.stopping.signal.aborted) return;
    const next = () => this.schedule(this.options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
    this.timer = setTimeout(() => {
      this.sweep().then(next, (error: unknown) => {
        this.logger.error('retention sweep failed; the next one runs on schedule', { error });
        next();
      });
    }, delayMs);
    this.timer.unref();
  }
}
