import type { Actor, InspectionEvent, Subscription } from 'xstate';
import {
  isMessage,
  type Clock,
  type ForgetEvent,
  type InboundMessage,
  type JsonObject,
  type Source,
} from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import {
  CONVERSATION_MACHINE_VERSION,
  type ConversationMachine,
  type ConversationContext,
  type ConversationSettings,
  type TurnSummary,
} from '../machines/index.js';
import { VersionConflictError, type ConversationStore } from '../persistence/index.js';
import { backoffDelay, sleep, type BackoffOptions } from './backoff.js';
import { createConversationActor } from './snapshot-restore.js';

type ConversationActor = Actor<ConversationMachine>;
type ConversationSnapshot = ReturnType<ConversationActor['getSnapshot']>;

export interface SourceSlotOptions {
  readonly sourceId: string;
  readonly machine: ConversationMachine;
  readonly store: ConversationStore;
  readonly settings: Partial<ConversationSettings>;
  readonly logger: Logger;
  readonly backoff: BackoffOptions;
  readonly clock: Clock;
  /** Called whenever the slot may have become settled (idle, saved, nothing waiting). */
  readonly onSettled: () => void;
  readonly inspect?: (event: InspectionEvent) => void;
  /** Fills in what a message needs before its turn (display names, group details). */
  readonly enrich?: MessageEnricher;
  /** Told when a turn starts and ends (the LINE loading animation listens). */
  readonly turnActivity?: TurnActivityListener;
  /** Unfollow and leave: `delete` the source's data (default) or `keep` it. */
  readonly forgetPolicy: 'delete' | 'keep';
  /**
   * Queued messages beyond this many bytes wait in the inbox instead of the snapshot, so a
   * stored conversation stays far below DynamoDB's item limit; they enter as turns finish.
   */
  readonly maxQueuedBytes: number;
}

/** Completes a message from what the conversation already knows; may call LINE. Never throws. */
export type MessageEnricher = (
  message: InboundMessage,
  context: ConversationContext,
) => Promise<InboundMessage>;

export interface TurnActivityListener {
  turnStarted(source: Source, turnId: string): void;
  turnEnded(source: Source, turnId: string): void;
}

/**
 * One source's live conversation: its actor, the inbox pump that feeds it in order, and
 * the serialised, coalesced saves that persist every step with the version check.
 */
export class SourceSlot {
  readonly sourceId: string;
  private actor: ConversationActor | undefined;
  private subscription: Subscription | undefined;
  private version = 0;
  /** Sent to the actor, not yet removed from the inbox by a successful save. */
  private readonly unsavedEventIds = new Set<string>();
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private saving = false;
  private saveAgain = false;
  private observedSeq = 0;
  private savedSeq = 0;
  private flushWaiters: { seq: number; resolve: () => void }[] = [];
  private failures = 0;
  private lastLoggedTurn: string | undefined;
  private activeTurn: { id: string; startedAt: number } | undefined;
  /** Inbox items were left for later because the queue was full. */
  private heldBack = false;
  private stopped = false;
  lastActivity = 0;

  constructor(private readonly options: SourceSlotOptions) {
    this.sourceId = options.sourceId;
  }

  /** "This source has work": reads the inbox and feeds new messages to the actor, in order. */
  pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        await this.pumpOnce();
      } while (this.pumpAgain && !this.stopped);
    })().finally(() => {
      this.pumping = undefined;
      this.options.onSettled();
    });
    return this.pumping;
  }

  /** Resolves once everything the actor has done so far is durable. */
  async flush(): Promise<void> {
    // Let the actor's observers see the snapshot that triggered this flush first.
    await Promise.resolve();
    const target = this.observedSeq;
    if (this.savedSeq >= target || this.stopped) return;
    await new Promise<void>((resolve) => this.flushWaiters.push({ seq: target, resolve }));
  }

  /** Idle, nothing queued, nothing unsaved, no pump running. */
  isSettled(): boolean {
    if (this.pumping || this.saving) return false;
    if (!this.actor) return true;
    return (
      this.unsavedEventIds.size === 0 &&
      this.savedSeq >= this.observedSeq &&
      !isBusy(this.actor.getSnapshot())
    );
  }

  snapshot(): ConversationSnapshot | undefined {
    return this.actor?.getSnapshot();
  }

  /** Persists the current snapshot and stops the actor (its in-flight children are aborted). */
  async stop(): Promise<void> {
    if (this.actor && !this.stopped) await this.flush();
    this.stopped = true;
    this.detach();
    for (const waiter of this.flushWaiters.splice(0)) waiter.resolve();
  }

  private async pumpOnce() {
    try {
      const items = await this.options.store.inbox(this.sourceId);
      if (!this.actor && !(await this.activate(items[0]?.source))) return; // nothing stored, nothing waiting
      const actor = this.actor!;
      const seen = new Set(actor.getSnapshot().context.recentEventIds);
      this.heldBack = false;
      for (const item of items) {
        if (this.actor !== actor) return; // detached meanwhile (a conflict): the reload pumps again
        if (this.unsavedEventIds.has(item.eventId)) continue;
        if (queuedBytes(actor.getSnapshot().context) > this.options.maxQueuedBytes) {
          this.heldBack = true; // the rest waits in the inbox until a turn finishes
          break;
        }
        if (item.kind === 'forget') {
          await this.forget(item);
          this.pumpAgain = true; // what came after the unfollow (a new follow, say) still runs
          return;
        }
        this.unsavedEventIds.add(item.eventId);
        if (item.kind === 'unsend') {
          actor.send({ type: 'line.unsend', messageId: item.messageId });
        } else if (seen.has(item.eventId)) {
          // Already in the snapshot (a crash between save and inbox clean-up): just consume it.
          this.requestSave();
        } else if (isMessage(item)) {
          const message = this.options.enrich
            ? await this.options.enrich(item, actor.getSnapshot().context)
            : item;
          actor.send({ type: 'line.message', message });
        }
      }
      this.failures = 0;
    } catch (error) {
      this.failures++;
      const delay = backoffDelay(this.failures, this.options.backoff);
      this.options.logger.error('source pump failed; retrying', {
        error,
        attempt: this.failures,
        retryInMs: delay,
      });
      await sleep(delay);
      this.pumpAgain = true;
    }
  }

  /** Unfollow or leave: the conversation, its profiles and its inbox go (or stay, by policy). */
  private async forget(event: ForgetEvent) {
    this.options.logger.info('source forgotten', { reason: event.reason, policy: this.options.forgetPolicy });
    if (this.options.forgetPolicy === 'keep') {
      this.unsavedEventIds.add(event.eventId);
      this.requestSave();
      return;
    }
    this.detach();
    this.unsavedEventIds.clear();
    this.version = 0;
    await this.options.store.deleteSource(this.sourceId);
  }

  /** When the running turn started (wall clock), for its deadline. */
  turnStartedAt(turnId: string): number | undefined {
    return this.activeTurn?.id === turnId ? this.activeTurn.startedAt : undefined;
  }

  /** Restores or creates the actor; false when the source has no conversation and no waiting item. */
  private async activate(inboxSource: Source | undefined): Promise<boolean> {
    const stored = await this.options.store.load(this.sourceId);
    const source = sourceOf(stored?.snapshot) ?? inboxSource;
    if (!source) return false;
    const { actor, replay } = createConversationActor({
      machine: this.options.machine,
      source,
      settings: this.options.settings,
      stored,
      logger: this.options.logger,
      ...(this.options.inspect && { inspect: this.options.inspect }),
    });
    this.version = stored?.version ?? 0;
    this.actor = actor;
    this.lastLoggedTurn = actor.getSnapshot().context.lastTurn?.id;
    // Subscribed after start: the start itself changes nothing worth a save (a fresh actor is
    // an empty idle, a restored one is what the store holds); every step after it is saved.
    actor.start();
    this.subscription = actor.subscribe({
      next: (snapshot) => this.observe(snapshot),
      error: (error) => this.options.logger.error('conversation actor failed', { error }),
    });
    this.trackTurn(actor.getSnapshot().context);
    for (const message of replay) actor.send({ type: 'line.message', message });
    if (replay.length > 0 || (stored && stored.machineVersion !== CONVERSATION_MACHINE_VERSION))
      this.requestSave();
    return true;
  }

  private observe(snapshot: ConversationSnapshot) {
    this.observedSeq++;
    this.lastActivity = this.options.clock.now();
    const turnEnded = this.activeTurn !== undefined && snapshot.context.turn === null;
    this.trackTurn(snapshot.context);
    this.logFinishedTurn(snapshot.context.lastTurn);
    this.requestSave();
    if (turnEnded && this.heldBack) void this.pump();
  }

  private trackTurn(context: ConversationContext) {
    const turnId = context.turn?.id;
    if (this.activeTurn?.id === turnId) return;
    if (this.activeTurn) this.options.turnActivity?.turnEnded(context.source, this.activeTurn.id);
    this.activeTurn = turnId ? { id: turnId, startedAt: this.lastActivity } : undefined;
    if (turnId) this.options.turnActivity?.turnStarted(context.source, turnId);
  }

  private requestSave() {
    if (this.saving) {
      this.saveAgain = true;
      return;
    }
    this.saving = true;
    void this.saveLoop();
  }

  /** Saves the latest snapshot until nothing newer is waiting; never two saves at once. */
  private async saveLoop() {
    try {
      do {
        this.saveAgain = false;
        if (!this.actor || this.stopped) return;
        const seq = this.observedSeq;
        const snapshot = this.actor.getSnapshot();
        const consumed = [...this.unsavedEventIds];
        try {
          this.version = await this.options.store.save({
            sourceId: this.sourceId,
            expectedVersion: this.version,
            machineVersion: CONVERSATION_MACHINE_VERSION,
            snapshot: this.actor.getPersistedSnapshot() as unknown as JsonObject,
            busy: isBusy(snapshot),
            consumedEventIds: consumed,
          });
          for (const eventId of consumed) this.unsavedEventIds.delete(eventId);
          this.savedSeq = seq;
          this.failures = 0;
          this.releaseFlushWaiters();
        } catch (error) {
          if (VersionConflictError.isInstance(error)) {
            void this.reloadAfterConflict(error);
            return;
          }
          this.failures++;
          const delay = backoffDelay(this.failures, this.options.backoff);
          this.options.logger.error('saving the conversation failed; retrying', {
            error,
            attempt: this.failures,
            retryInMs: delay,
          });
          await sleep(delay);
          this.saveAgain = true;
        }
      } while (this.saveAgain);
    } finally {
      this.saving = false;
      // A step observed while this loop was ending (a reloaded actor's, say) still needs its save.
      if (this.saveAgain && this.actor && !this.stopped) this.requestSave();
      this.options.onSettled();
    }
  }

  /**
   * Another writer saved this source: our actor is stale. Drop it, wait a jittered moment,
   * reload what the store holds and feed the inbox again — our unsaved messages are still there.
   */
  private async reloadAfterConflict(conflict: VersionConflictError) {
    this.failures++;
    const delay = backoffDelay(this.failures, this.options.backoff);
    this.options.logger.warn('version conflict; reloading the conversation', {
      expectedVersion: conflict.expectedVersion,
      actualVersion: conflict.actualVersion,
      retryInMs: delay,
    });
    this.detach();
    this.unsavedEventIds.clear();
    await sleep(delay);
    if (!this.stopped) void this.pump();
  }

  private detach() {
    if (this.activeTurn && this.actor) {
      this.options.turnActivity?.turnEnded(this.actor.getSnapshot().context.source, this.activeTurn.id);
    }
    this.activeTurn = undefined;
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.actor?.stop();
    this.actor = undefined;
    this.observedSeq = this.savedSeq = 0;
    for (const waiter of this.flushWaiters.splice(0)) waiter.resolve();
  }

  private releaseFlushWaiters() {
    const ready = this.flushWaiters.filter((waiter) => waiter.seq <= this.savedSeq);
    this.flushWaiters = this.flushWaiters.filter((waiter) => waiter.seq > this.savedSeq);
    for (const waiter of ready) waiter.resolve();
  }

  private logFinishedTurn(turn: TurnSummary | null) {
    if (!turn || turn.id === this.lastLoggedTurn) return;
    this.lastLoggedTurn = turn.id;
    const fields = {
      turnId: turn.id,
      stopReason: turn.stopReason,
      modelCalls: turn.modelCalls,
      ...turn.usage,
    };
    if (turn.stopReason === 'model-call-limit' || turn.stopReason === 'model-failed') {
      this.options.logger.warn('turn stopped early', fields);
    } else {
      this.options.logger.info('turn finished', fields);
    }
  }
}

function isBusy(snapshot: ConversationSnapshot): boolean {
  return !snapshot.matches('idle') || snapshot.context.pending.length > 0;
}

function sourceOf(snapshot: JsonObject | undefined): Source | undefined {
  const source = (snapshot?.context as { source?: Source } | undefined)?.source;
  return source && typeof source.id === 'string' ? source : undefined;
}

/** An estimate of the queued messages' size in the snapshot (only computed while some wait). */
function queuedBytes(context: ConversationContext): number {
  return context.pending.length === 0 ? 0 : JSON.stringify(context.pending).length;
}
