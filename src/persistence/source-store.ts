import type { HistoryEntry, HistoryLimits, InboxItem, JsonObject } from '../domain/index.js';

// The store port of the source runtime v2 (docs/persistence.md): a source is a small head,
// history entries appended as records of their own, an inbox, and one owner at a time.

/** One history entry as stored: `seq` increases by one per entry of the source, never reused. */
export interface HistoryRecord {
  readonly seq: number;
  readonly entry: HistoryEntry;
}

/** Who owns a source while it has work. The lease is renewed by heartbeats. */
export interface SourceOwner {
  /** Unique per process start (host, pid and a random part). */
  readonly ownerId: string;
  /** The owner's host name and process id: a dead process on the same host is taken over at once. */
  readonly host: string;
  readonly pid: number;
  /** Last heartbeat (epoch ms); the lease runs out `leaseMs` after it. */
  readonly heartbeatAt: number;
  readonly leaseMs: number;
}

/**
 * A source's small head: everything but history and inbox. It stays a few hundred bytes to a
 * few KB whatever the length of the conversation.
 */
export interface SourceHead {
  readonly sourceId: string;
  /** Increases by one on every checkpoint: the optimistic-concurrency token. */
  readonly version: number;
  /** Increases by one on every successful `acquire`: the fencing number every write checks. */
  readonly fence: number;
  /** Present while some process owns the source. */
  readonly owner?: SourceOwner;
  /** The machine version that wrote the snapshot (CONVERSATION_MACHINE_VERSION). */
  readonly machineVersion: number;
  /**
   * The conversation actor's persisted snapshot without `history` and `settings`; undefined
   * before the first checkpoint and after a forget (a tombstone keeps version, fence, owner).
   */
  readonly snapshot?: JsonObject;
  /** The highest `seq` ever written for this source (0: none); new entries continue above it. */
  readonly lastSeq: number;
  /** A turn is running: the source has work even with an empty inbox. */
  readonly busy: boolean;
  readonly updatedAt: number;
}

/**
 * An accepted inbox item with the store's key for it (its position in the source's order), or
 * one whose stored text does not read back as an item (`unreadable`, docs/persistence.md): the
 * source consumes it without a turn, so it never stops the items behind it.
 */
export type StoredInboxItem = ReadableInboxItem | UnreadableInboxItem;

interface StoredInboxPosition {
  /** Orders the source's inbox; opaque to callers, passed back to consume or forget. */
  readonly key: string;
  /** How many drains took this item and did not finish it (poison detection). */
  readonly attempts: number;
}

export interface ReadableInboxItem extends StoredInboxPosition {
  readonly item: InboxItem;
  readonly unreadable?: undefined;
  /** An unsend accepted while this message waited marked it: it goes unanswered. */
  readonly takenBack?: true;
}

export interface UnreadableInboxItem extends StoredInboxPosition {
  readonly item?: undefined;
  readonly takenBack?: undefined;
  /** Why the stored text is not an inbox item. */
  readonly unreadable: string;
  /** The event id stored beside the item, when the store keeps one. */
  readonly eventId?: string;
}

/**
 * A record `load` left out because its stored text does not read back (docs/persistence.md):
 * the head's snapshot (the conversation starts at idle with its history), or a history entry —
 * the window then holds only what is newer than it, as if history began there.
 */
export interface UnreadableRecord {
  readonly record: 'snapshot' | 'history';
  /** The history entry's seq (or the store's key for the page that held it). */
  readonly key?: string;
  readonly error: string;
}

/**
 * How much of the newest history a load returns: the same limits, and the same rule
 * (`collectHistoryWindow`, `boundHistory`), as the history kept in memory.
 */
export type HistoryWindow = HistoryLimits;

export interface LoadedSource {
  /**
   * Undefined for a source never acquired; without `snapshot` before the first checkpoint and
   * after a forget.
   */
  readonly head: SourceHead | undefined;
  /** The newest entries within the window, oldest first; the first one is a user entry. */
  readonly history: readonly HistoryRecord[];
  /** What the load left out because it does not read back; absent when nothing. */
  readonly unreadable?: readonly UnreadableRecord[];
}

/** The caller now owns the source: its writes carry this fence. */
export interface Ownership {
  readonly sourceId: string;
  readonly ownerId: string;
  readonly fence: number;
  /** The head's version at the time of the claim (0 for a new source). */
  readonly version: number;
  /**
   * Set by `acquire` when it took the source over from another owner (its lease ran out or its
   * process is gone): that owner, whose fence was `fence - 1`. Logged as a takeover.
   */
  readonly previousOwner?: SourceOwner;
}

/**
 * One durable step: the new head, the history entries above the last saved `seq`, the
 * entries an unsend removed, and the inbox items this step took in — all or nothing,
 * and only if `fence` and `expectedVersion` still hold.
 */
export interface Checkpoint {
  readonly ownership: Ownership;
  readonly expectedVersion: number;
  readonly machineVersion: number;
  readonly snapshot: JsonObject;
  readonly busy: boolean;
  readonly appended: readonly HistoryRecord[];
  readonly removedSeqs: readonly number[];
  readonly consumedKeys: readonly string[];
  /**
   * The consumed items are messages a turn answers: if an unsend took one of them back since it
   * was read, nothing is written (`MessageTakenBackError`) and the answer never goes out. Absent
   * for the steps that consume without answering (an unsend taking its waiting message along).
   */
  readonly answering?: boolean;
  /**
   * Give the source up in the same write (the owner found its inbox drained at the end of a
   * step): the head keeps no owner, as after `release`. Saves a write per turn (docs/runtime.md).
   */
  readonly release?: boolean;
}

/** What a turn's closing checkpoint did. */
export interface ClosedTurn {
  readonly version: number;
  /** The inbox was empty: the source was released in the same write. */
  readonly released: boolean;
}

/** A cached LINE display name: an item of its own, so the head stays small. */
export interface StoredProfile {
  readonly userId: string;
  readonly displayName?: string;
  readonly fetchedAt: number;
}

/**
 * What the inspector lists for every stored source. A source with inbox items but no head yet
 * has version 0, no owner, `busy` false and `updatedAt` 0.
 */
export interface SourceSummary {
  readonly sourceId: string;
  readonly version: number;
  readonly owner?: SourceOwner;
  readonly busy: boolean;
  readonly inboxSize: number;
  readonly updatedAt: number;
}

/** What `acceptAndAcquire` did: the item was new (not a redelivery), and the ownership it took. */
export interface AcceptedAndAcquired {
  readonly accepted: boolean;
  /** Undefined for a redelivery, or when the source had an owner. */
  readonly ownership: Ownership | undefined;
}

/**
 * The persistence port of the source runtime. Memory, SQLite and DynamoDB implement it; one
 * conformance suite checks them all, including two writers and a crash at every write.
 */
export interface SourceStore {
  /**
   * Claims the event id and appends the item to its source's inbox in one atomic write,
   * before the webhook answers. False when the id was claimed before (a redelivery).
   */
  accept(item: InboxItem): Promise<boolean>;
  /**
   * `accept`, and in the same write take the source for `owner` when nobody owns it (no owner
   * at all: a lapsed or dead owner is left to `acquire`). For a store only one process can
   * open (SQLite, docs/persistence.md): that process is the source's only possible owner, so
   * the turn that follows needs no `acquire` write of its own. Optional; hosts fall back to
   * `accept` then `acquire`.
   */
  acceptAndAcquire?(item: InboxItem, owner: SourceOwner): Promise<AcceptedAndAcquired>;
  /** The source's waiting items, oldest first (at most `limit`). */
  inbox(sourceId: string, limit?: number): Promise<StoredInboxItem[]>;
  /** Counts one more drain attempt on an inbox item (poison detection). */
  countAttempt(sourceId: string, key: string): Promise<void>;

  /**
   * Takes ownership when the source has no owner, its owner's lease ran out
   * (`heartbeatAt + leaseMs < now`), `isGone(owner)` says the owner process is dead, or the
   * owner is `owner.ownerId` itself; increments the fence. A new source gets a head at
   * version 0 without a snapshot. Undefined when another live owner holds it.
   */
  acquire(
    sourceId: string,
    owner: SourceOwner,
    isGone: (owner: SourceOwner) => boolean,
  ): Promise<Ownership | undefined>;
  /** Renews the heartbeat; throws `OwnershipLostError` when the fence moved on. */
  renew(ownership: Ownership, heartbeatAt: number): Promise<void>;
  /** Gives the source up (its work is done, or SIGTERM); a no-op when already lost. */
  release(ownership: Ownership): Promise<void>;

  /** The head and the newest history within the window (one read of each on DynamoDB). */
  load(sourceId: string, window: HistoryWindow): Promise<LoadedSource>;
  /**
   * Writes one checkpoint atomically; returns the new version. Throws `OwnershipLostError`
   * when the fence moved on (or the owner released), then `VersionConflictError` when the
   * version did; a `seq` not above the head's `lastSeq` is a caller's bug (`RangeError`).
   * Removed seqs and consumed keys that are already gone are ignored.
   */
  checkpoint(checkpoint: Checkpoint): Promise<number>;
  /**
   * A turn's closing checkpoint: written as `checkpoint`, and in the same transaction the source
   * is released when its inbox then holds nothing. For stores that can see the inbox inside the
   * write (SQLite, memory): the owner needs no inbox read before it, nor after it — an item
   * accepted later finds the source free. Optional; owners fall back to reading the inbox, a
   * checkpoint that releases, and one more read (docs/runtime.md, "Ownership").
   */
  closeTurn?(checkpoint: Checkpoint): Promise<ClosedTurn>;
  /**
   * Unfollow or leave: deletes the history, the profiles, the snapshot and the inbox items up
   * to and including `throughKey` (the forget item); later items stay. Keeps a tombstone head
   * (not busy) with version (+1), fence, owner and `lastSeq` (seqs are never reused). Checks
   * the fence.
   */
  forget(ownership: Ownership, throughKey: string): Promise<void>;

  /** The source's cached profiles (display names by user id). */
  profiles(sourceId: string): Promise<StoredProfile[]>;
  /** Stores or refreshes one cached profile; checks the fence. */
  saveProfile(ownership: Ownership, profile: StoredProfile): Promise<void>;

  /** Sources with inbox items or a busy head: resumed after a restart. */
  sourcesWithWork(): Promise<string[]>;
  /**
   * Stored sources, the most recently updated first (a source with only inbox items counts as
   * updated at 0, then by id), at most `limit` (all by default): for the inspector and
   * operators, never on a request path.
   */
  listSources(limit?: number): Promise<SourceSummary[]>;
  /** Releases connections and file handles. */
  close(): Promise<void>;
}

/** `listSources`'s order: the most recently updated first, then by source id. */
export function byRecentUpdate(a: SourceSummary, b: SourceSummary): number {
  return b.updatedAt - a.updatedAt || a.sourceId.localeCompare(b.sourceId);
}
