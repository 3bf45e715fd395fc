import { setMostRecent, type JsonObject } from '../domain/index.js';

/**
 * What one journal entry records:
 * - `start`: the actor started (fresh or restored from its snapshot) in state `to`;
 * - `transition`: a microstep moved the actor from `from` to `to`;
 * - `event`: an event was handled without leaving the state (a targetless transition);
 * - `ignored`: an event no transition accepted (XState drops it);
 * - `stop`: the actor stopped (evicted, shut down).
 */
export type JournalEntryKind = 'start' | 'transition' | 'event' | 'ignored' | 'stop';

/** One step of a source's actor, as XState's inspection API reported it. No message content. */
export interface JournalEntry {
  /** Unique within the journal: the page merges the stream with what it fetched. */
  readonly id: string;
  readonly kind: JournalEntryKind;
  /** When it happened (ms since the epoch, the host's clock). */
  readonly time: number;
  /** What triggered it: an event type, `always` for an eventless transition. */
  readonly event: string;
  /** For `always`: the event whose macrostep ran it. */
  readonly trigger?: string;
  /** State values as text (`toolCall.running`) and as XState state values. */
  readonly from: string;
  readonly to: string;
  readonly toValue: JsonObject | string;
  /** How long the actor was in `from` before this (ms); only for transitions. */
  readonly durationMs?: number;
  /** The transition taken: its source state id, target ids and raw event type (`''` eventless). */
  readonly transition?: {
    readonly source: string;
    readonly targets: readonly string[];
    readonly eventType: string;
  };
  /** A few numbers from the context after the step, for replay (history length, queue, …). */
  readonly summary?: JsonObject;
}

/**
 * Where transition journals are kept so a conversation can be replayed after a restart.
 * Implementations: `MemoryJournalStore`, `FileJournalStore` (under `DATA_DIR/journal`).
 */
export interface JournalStore {
  /** Appends entries to a source's journal, dropping its oldest beyond the store's limit. */
  append(sourceId: string, entries: readonly JournalEntry[]): Promise<void>;
  /** The source's entries, oldest first (at most the limit). */
  read(sourceId: string): Promise<JournalEntry[]>;
  delete(sourceId: string): Promise<void>;
}

/**
 * How much a journal store keeps: the newest entries of each source, for the sources written
 * most recently. An entry is about 400 bytes as JSON and 700 in memory; a turn adds about 8.
 */
export interface JournalBounds {
  readonly entriesPerSource: number;
  /** Sources whose journals are kept; the journal of the one written longest ago goes first. */
  readonly sources: number;
}

/**
 * Keeps journals in memory (`STORE=memory` and `STORE=dynamodb`): by default 500 entries for
 * each of the 100 sources written most recently, at most about 35 MB however many chats come.
 */
export class MemoryJournalStore implements JournalStore {
  private readonly journals = new Map<string, JournalEntry[]>();
  private readonly bounds: JournalBounds;

  constructor(bounds: Partial<JournalBounds> = {}) {
    this.bounds = { entriesPerSource: 500, sources: 100, ...bounds };
  }

  append(sourceId: string, entries: readonly JournalEntry[]): Promise<void> {
    const journal = [...(this.journals.get(sourceId) ?? []), ...entries];
    setMostRecent(this.journals, sourceId, journal.slice(-this.bounds.entriesPerSource), this.bounds.sources);
    return Promise.resolve();
  }

  read(sourceId: string): Promise<JournalEntry[]> {
    return Promise.resolve([...(this.journals.get(sourceId) ?? [])]);
  }

  delete(sourceId: string): Promise<void> {
    this.journals.delete(sourceId);
    return Promise.resolve();
  }
}
