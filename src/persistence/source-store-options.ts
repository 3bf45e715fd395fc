import { defaults } from '../defaults/index.js';
import { systemClock, type Clock } from '../domain/index.js';

// The options every SourceStore adapter shares, and their defaults, resolved in one place so the
// memory, SQLite and DynamoDB stores cannot drift apart (docs/persistence.md).

/** What every SourceStore adapter takes besides its connection. */
export interface SourceStoreOptions {
  /** The store's clock: lease expiry, claim expiry, `updatedAt`. */
  readonly clock?: Clock;
  /** How long a claimed event id is remembered (ms; default 7 days). */
  readonly claimTtlMs?: number;
  /**
   * Messages waiting per source before accept stops keeping them and counts them into one
   * overflow item instead (`admitToInbox`; default `defaults.store.maxInbox`).
   */
  readonly maxInbox?: number;
  /**
   * Test seam for crash tests: called between the steps of every write (`accept:claim`,
   * `checkpoint:history`, … `checkpoint:commit`). Throwing aborts the write there; a child
   * process can kill itself there.
   */
  readonly onWriteStep?: (step: string) => void;
}

/** The default time an event id stays claimed: LINE redelivers within days, not weeks. */
export const DEFAULT_CLAIM_TTL_MS = defaults.store.claimTtlMs;

/** `SourceStoreOptions` with every default filled in. */
export interface ResolvedSourceStoreOptions {
  readonly clock: Clock;
  readonly claimTtlMs: number;
  readonly maxInbox: number;
  readonly onWriteStep: (step: string) => void;
}

/** Fills in the defaults of the options every adapter shares. */
export function resolveSourceStoreOptions(options: SourceStoreOptions): ResolvedSourceStoreOptions {
  return {
    clock: options.clock ?? systemClock,
    claimTtlMs: options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS,
    maxInbox: options.maxInbox ?? defaults.store.maxInbox,
    onWriteStep: options.onWriteStep ?? (() => {}),
  };
}
