import type { Actor } from 'xstate';
import type { InboundMessage, JsonObject } from '../domain/index.js';
import type { ConversationMachine, KnownProfile, StopReason } from '../machines/index.js';
import type { HistoryRecord, Ownership, SourceHead } from '../persistence/index.js';
import type { InboxPlan, PlanRules } from './inbox-plan.js';

// The source machine's vocabulary: its input, context and events, and what its services take
// and give (source-setup.ts declares them, source-services.ts implements them).

export type ConversationActor = Actor<ConversationMachine>;

/** The source's tag for states in which it needs nothing from its host (for `whenSettled`). */
export const SETTLED_TAG = 'settled';

export interface SourceInput {
  readonly sourceId: string;
  readonly rules: PlanRules;
  /** Unfollow and leave: `delete` the source's data, or `keep` it and only consume the event. */
  readonly forgetPolicy: 'delete' | 'keep';
}

/** A conversation loaded from the store, ready to start. */
export interface LoadedConversation {
  readonly conversation: ConversationActor;
  readonly head: SourceHead | undefined;
  readonly replay: readonly InboundMessage[];
  readonly profiles: ReadonlyMap<string, KnownProfile>;
  /** The turn the head held in progress was set aside (abandoned, stored, the user told). */
  readonly turnSetAside: boolean;
}

/** A turn's messages, completed (display names) and stamped with the time the turn starts. */
export interface PreparedTurn {
  readonly messages: readonly InboundMessage[];
  readonly at: number;
  readonly profiles: ReadonlyMap<string, KnownProfile>;
}

/** One checkpoint as the source machine hands it to the store. */
export interface CheckpointRequest {
  readonly ownership: Ownership;
  readonly expectedVersion: number;
  readonly snapshot: JsonObject;
  readonly busy: boolean;
  readonly appended: readonly HistoryRecord[];
  readonly removedSeqs: readonly number[];
  readonly consumedKeys: readonly string[];
  /** The consumed items are the messages of the turn: refused if one was taken back meanwhile. */
  readonly answering: boolean;
  readonly lastSeq: number;
  /** Why: the intent of a side effect, or the state at the end of a step. */
  readonly reason: 'intent' | 'step';
  /** Give the source up in the same write: the turn ended and the inbox was found empty. */
  readonly release: boolean;
}

/** A source taken: its ownership, and the heartbeat time the take wrote (its lease starts there). */
export interface AcquiredSource {
  readonly ownership: Ownership;
  readonly leaseFrom: number;
}

export interface QuarantineInput {
  readonly sourceId: string;
  readonly message: InboundMessage;
  readonly conversation: ConversationActor;
}

export interface CheckpointResult {
  readonly version: number;
  readonly savedSeq: number;
  readonly consumedKeys: readonly string[];
  readonly removedSeqs: readonly number[];
}

export interface SourceContext {
  readonly sourceId: string;
  readonly rules: PlanRules;
  readonly forgetPolicy: 'delete' | 'keep';
  /** The live conversation: undefined until loaded, and again after a loss or a forget. */
  readonly conversation: ConversationActor | undefined;
  /** Present while this process owns the source: every write carries its fence. */
  readonly ownership: Ownership | undefined;
  /**
   * The heartbeat time of our last successful acquire or renew (this host's clock): the lease
   * is ours until `leaseFrom + leaseMs`, as the store judges it.
   */
  readonly leaseFrom: number;
  /** The head version the conversation was last durable at. */
  readonly version: number;
  /** The highest `seq` durable in the store. */
  readonly savedSeq: number;
  /** Inbox items the conversation took in, consumed by the next checkpoint. */
  readonly consumedKeys: readonly string[];
  /** Entries an unsend removed, deleted by the next checkpoint. */
  readonly removedSeqs: readonly number[];
  /** Messages a migrated snapshot left to run again, before the inbox. */
  readonly replay: readonly InboundMessage[];
  /** The next step, decided from the inbox. */
  readonly plan: InboxPlan;
  /** Where the turn that merges the newest queued messages starts (the queue cap). */
  readonly mergeFrom: string | undefined;
  /** Display names known for this source (the store's profile items, cached). */
  readonly profiles: ReadonlyMap<string, KnownProfile>;
  /** Failures in a row, for the backoff; 0 after any success. */
  readonly failures: number;
  /**
   * Times in a row the conversation actor failed (a bug, a port's bad answer) since a turn last
   * ended: at `defaults.host.maxTurnFailures` its turn is set aside.
   */
  readonly turnFailures: number;
  /** `work.available` arrived during the turn's closing write (it may have released anyway). */
  readonly workAnnounced: boolean;
  /**
   * Turns started since this process last took the source: past the first, a source waiting
   * for a working room (the host's `maxWorkingSources`) is let in first.
   */
  readonly turnsHeld: number;
}

export type SourceEvent =
  /**
   * "This source has work": the inbox says what. With `ownership` when the accept itself took
   * the idle source (`acceptAndAcquire`): no `acquire` write follows.
   */
  | { type: 'work.available'; ownership?: Ownership; leaseFrom?: number }
  /** Drop the idle source from memory (its state is durable). */
  | { type: 'evict' }
  /** The process stops: stop the conversation (no further side effect) and release the source. */
  | { type: 'shutdown' }
  | { type: 'ownership.lost'; error: unknown }
  /** A heartbeat renewed the lease: it runs from `at`. */
  | { type: 'lease.renewed'; at: number }
  | { type: 'conversation.turnEnded'; turnId: string; outcome: StopReason | 'quiet' }
  | { type: 'conversation.checkpointNeeded'; turnId: string; reason: 'tool' | 'delivery' }
  | { type: 'conversation.historyRemoved'; seqs: readonly number[] }
  /**
   * The conversation actor threw (a bug): it is dropped and loaded again from its last
   * checkpoint, or its turn set aside when that keeps happening.
   */
  | { type: 'conversation.failed'; error: unknown };

/** What the relay is told: the conversation to relay from now on (none after a loss). */
export interface RelayWatch {
  readonly type: 'watch';
  readonly conversation: ConversationActor | undefined;
}

/** What the heartbeat is told: hold this ownership's lease (renew it now and then), or stop. */
export type HeartbeatCommand =
  { readonly type: 'hold'; readonly ownership: Ownership } | { readonly type: 'drop' };

/** The next step the inbox calls for, and where a merged turn starts (`planInbox`). */
export interface NextStep {
  readonly plan: InboxPlan;
  readonly mergeFrom: string | undefined;
  /** A turn, prepared; absent when the turn does not fit in the host's time (it is left waiting). */
  readonly prepared?: PreparedTurn;
  /** The turn is left waiting for another source that waits for a working room (fairness). */
  readonly givesWay?: boolean;
}
