import type { InspectionEvent } from 'xstate';
import { defaults } from '../defaults/index.js';
import type { Clock, InboxItem } from '../domain/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import {
  provideConversationServices,
  type ConversationMachine,
  type ConversationServices,
  type ConversationSettings,
} from '../machines/index.js';
import { acceptEvents, type AcceptResult, type ConversationStore } from '../persistence/index.js';
import { defaultBackoff, type BackoffOptions } from './backoff.js';
import { SourceSlot, type MessageEnricher, type TurnActivityListener } from './source-slot.js';

export interface ActorHostOptions {
  readonly store: ConversationStore;
  /** The conversation's side effects; the host adds the checkpoint. */
  readonly services: Omit<ConversationServices, 'checkpoint'>;
  readonly settings?: Partial<ConversationSettings>;
  /** An idle actor is persisted and dropped from memory after this long (ms). */
  readonly idleEvictionMs?: number;
  readonly backoff?: BackoffOptions;
  readonly logger?: Logger;
  readonly clock: Clock;
  /** XState's inspection events of every conversation actor (the live inspector listens here). */
  readonly inspect?: (sourceId: string, event: InspectionEvent) => void;
  /** Completes messages before their turn (display names, group details). */
  readonly enrich?: MessageEnricher;
  /** Told when turns start and end (the LINE loading animation). */
  readonly turnActivity?: TurnActivityListener;
  /** Unfollow and leave: delete the source's data (default) or keep it. */
  readonly forgetPolicy?: 'delete' | 'keep';
  /** A turn's model calls, retries included, must be over this long after it started (ms). */
  readonly turnDeadlineMs?: number;
  /** Queued messages beyond this many bytes wait in the inbox (default 64 KiB). */
  readonly maxQueuedBytes?: number;
}

/**
 * Runs one conversation actor per LINE source. Messages enter through the store's inbox
 * (durably, before the webhook answers); a source's messages are handled in order, one turn
 * at a time; different sources run side by side; idle actors are evicted and restored on demand.
 */
export class ActorHost {
  private readonly slots = new Map<string, SourceSlot>();
  private readonly machine: ConversationMachine;
  private readonly logger: Logger;
  private readonly idleEvictionMs: number;
  private readonly evictionTimers = new Map<string, NodeJS.Timeout>();
  private settledWaiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: ActorHostOptions) {
    this.logger = options.logger ?? silentLogger;
    this.idleEvictionMs = options.idleEvictionMs ?? defaults.host.idleEvictionMs;
    const turnDeadlineMs = options.turnDeadlineMs ?? defaults.host.turnDeadlineMs;
    this.machine = provideConversationServices({
      ...options.services,
      checkpoint: (sourceId) => this.slots.get(sourceId)?.flush() ?? Promise.resolve(),
      turnDeadline: (sourceId, turnId) => {
        const startedAt = this.slots.get(sourceId)?.turnStartedAt(turnId) ?? options.clock.now();
        return startedAt + turnDeadlineMs;
      },
    });
  }

  /**
   * Claims each message's event id and appends it to its source's inbox (`acceptEvents`,
   * as the Lambda webhook does); once this resolves the messages are durable and the webhook
   * may answer. Then their sources run.
   */
  async accept(messages: readonly InboxItem[]): Promise<AcceptResult> {
    if (this.closed) throw new Error('the actor host is shut down');
    const { accepted, duplicates, sources } = await acceptEvents(this.options.store, messages, this.logger);
    for (const sourceId of sources) this.notify(sourceId);
    return { accepted, duplicates };
  }

  /** "Source X has work": the inbox says what. */
  notify(sourceId: string): void {
    if (this.closed) return;
    this.cancelEviction(sourceId);
    void this.slotFor(sourceId).pump();
  }

  /** Resumes every source the store says has work (after a restart or a crash). */
  async recover(): Promise<number> {
    const sources = await this.options.store.sourcesWithWork();
    for (const sourceId of sources) this.notify(sourceId);
    if (sources.length > 0)
      this.logger.info('resuming sources with unfinished work', { sources: sources.length });
    return sources.length;
  }

  /** Resolves when every live source is idle, with nothing queued and everything saved. */
  whenSettled(): Promise<void> {
    if (this.allSettled()) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** The current snapshot of a live source's actor. */
  snapshotOf(sourceId: string) {
    return this.slots.get(sourceId)?.snapshot();
  }

  liveSources(): string[] {
    return [...this.slots.keys()];
  }

  /**
   * Stops taking work, lets running turns finish until the deadline, then persists and
   * stops every actor. A turn cut off by the deadline resumes from its checkpoint next start.
   */
  async shutdown(deadlineMs: number = defaults.server.shutdownDeadlineMs): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>(
      (resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)),
    );
    const outcome = await Promise.race([this.whenSettled().then(() => 'settled' as const), deadline]);
    clearTimeout(timer);
    if (outcome === 'deadline') this.logger.warn('shutdown deadline reached; persisting turns in progress');
    for (const timerId of this.evictionTimers.values()) clearTimeout(timerId);
    this.evictionTimers.clear();
    await Promise.all([...this.slots.values()].map((slot) => slot.stop()));
    this.slots.clear();
  }

  private slotFor(sourceId: string): SourceSlot {
    let slot = this.slots.get(sourceId);
    if (!slot) {
      slot = new SourceSlot({
        sourceId,
        machine: this.machine,
        store: this.options.store,
        settings: this.options.settings ?? {},
        logger: this.logger.child({ sourceId }),
        backoff: this.options.backoff ?? defaultBackoff,
        clock: this.options.clock,
        onSettled: () => this.onSlotSettled(sourceId),
        forgetPolicy: this.options.forgetPolicy ?? defaults.line.forgetPolicy,
        maxQueuedBytes: this.options.maxQueuedBytes ?? defaults.host.maxQueuedBytes,
        ...(this.options.enrich && { enrich: this.options.enrich }),
        ...(this.options.turnActivity && { turnActivity: this.options.turnActivity }),
        ...(this.options.inspect && {
          inspect: (event: InspectionEvent) => this.options.inspect!(sourceId, event),
        }),
      });
      this.slots.set(sourceId, slot);
    }
    return slot;
  }

  private onSlotSettled(sourceId: string) {
    const slot = this.slots.get(sourceId);
    if (slot?.isSettled() && !this.closed) this.scheduleEviction(slot);
    if (this.settledWaiters.length > 0 && this.allSettled()) {
      for (const resolve of this.settledWaiters.splice(0)) resolve();
    }
  }

  private allSettled(): boolean {
    for (const slot of this.slots.values()) if (!slot.isSettled()) return false;
    return true;
  }

  private scheduleEviction(slot: SourceSlot) {
    this.cancelEviction(slot.sourceId);
    const timer = setTimeout(() => {
      this.evictionTimers.delete(slot.sourceId);
      if (!slot.isSettled() || this.slots.get(slot.sourceId) !== slot) return;
      this.slots.delete(slot.sourceId);
      void slot.stop();
      this.logger.debug('idle actor evicted', { sourceId: slot.sourceId });
    }, this.idleEvictionMs);
    timer.unref();
    this.evictionTimers.set(slot.sourceId, timer);
  }

  private cancelEviction(sourceId: string) {
    const timer = this.evictionTimers.get(sourceId);
    if (timer) clearTimeout(timer);
    this.evictionTimers.delete(sourceId);
  }
}
