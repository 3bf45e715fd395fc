import { createActor, type Actor, type InspectionEvent } from 'xstate';
import { defaults } from '../defaults/index.js';
import type { Clock, InboundMessage, InboxItem, Source } from '../domain/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import {
  defaultConversationSettings,
  provideConversationServices,
  type ConversationServices,
  type ConversationSettings,
} from '../machines/index.js';
import {
  acceptEvents,
  type AcceptResult,
  type Ownership,
  type SourceOwner,
  type SourceStore,
} from '../persistence/index.js';
import { defaultBackoff, type BackoffOptions } from './backoff.js';
import type { SourceMachine } from './source-machine.js';
import { SETTLED_TAG } from './source-types.js';
import { ownerAt, ownerIdentity, ownerProcessIsGone, type OwnerIdentity } from './source-owner.js';
import { provideSourceServices, type MessageEnricher, type TurnActivityListener } from './source-services.js';

export interface ActorHostOptions {
  readonly store: SourceStore;
  /** The conversation's side effects. */
  readonly services: ConversationServices;
  /** From configuration, at run time: never persisted with a conversation. */
  readonly settings?: Partial<ConversationSettings>;
  /** A released, idle source leaves memory after this long (ms). */
  readonly idleEvictionMs?: number;
  /** At most this many sources in memory; the least recently used idle ones leave first. */
  readonly maxLiveSources?: number;
  /** At most this many sources work at once; work for more waits its turn, oldest first. */
  readonly maxWorkingSources?: number;
  /** How long an ownership lasts without a heartbeat (ms); heartbeats come three times as often. */
  readonly leaseMs?: number;
  /**
   * The longest a side effect's own call may take (ms; default the LINE call timeout): a side
   * effect starts only while the lease stays ours at least this long. Must be below `leaseMs`.
   */
  readonly sideEffectTimeoutMs?: number;
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
  /** Cancels what a forgotten source had scheduled (its reminders). */
  readonly onForget?: (source: Source) => Promise<void>;
  /** A turn's model calls, retries included, must be over this long after it started (ms). */
  readonly turnDeadlineMs?: number;
  /**
   * Epoch ms after which this host starts no turn it could not finish: a turn starts only while
   * `now + turnDeadlineMs` is not past it (a Lambda invocation's end). Default: no limit.
   */
  readonly turnsUntil?: number;
  /**
   * Count an attempt on the inbox items of every turn before it starts, and set a message
   * aside once its turns started this many times without finishing (the Lambda worker: a
   * message that kills its invocation comes back); likewise a turn resumed this many times after
   * its process died is set aside with a notice. Unset: no counting, no extra write per turn.
   */
  readonly maxInboxAttempts?: number;
  /** This host's owner id (default: host name, process id and a random part). */
  readonly ownerId?: string;
  /** Whether another owner's process is dead (default: same host and its PID is gone). */
  readonly isOwnerGone?: (owner: SourceOwner) => boolean;
}

type SourceActor = Actor<SourceMachine>;

/** A source the accept took for this process, and when its lease started. */
interface TakenSource {
  readonly ownership: Ownership;
  readonly leaseFrom: number;
}
/**
 * Runs LINE sources in this process: one source machine per source (docs/runtime.md), each
 * owning its conversation actor while it has work. Messages enter through the store's inbox
 * (durably, before the webhook answers); the host only tells a source that it has work,
 * takes over after a restart only sources whose owner is gone, lets at most `maxWorkingSources`
 * work at once, keeps at most `maxLiveSources` in memory, and releases what it owns when it stops.
 */
export class ActorHost {
  private readonly sources = new Map<string, SourceActor>();
  /** Live sources that are not settled: acquiring, running turns, releasing. */
  private readonly working = new Set<string>();
  /** Sources with work that wait for one of `working` to settle, oldest first. */
  private readonly waiting = new Set<string>();
  private readonly machine: SourceMachine;
  private readonly logger: Logger;
  private readonly maxLiveSources: number;
  private readonly maxWorkingSources: number;
  private readonly settings: ConversationSettings;
  readonly owner: OwnerIdentity;
  private settledWaiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: ActorHostOptions) {
    this.logger = options.logger ?? silentLogger;
    this.maxLiveSources = options.maxLiveSources ?? defaults.host.maxLiveSources;
    this.maxWorkingSources = options.maxWorkingSources ?? defaults.host.maxWorkingSources;
    this.settings = {
      ...defaultConversationSettings,
      ...options.settings,
      ...(options.turnDeadlineMs !== undefined && { turnDeadlineMs: options.turnDeadlineMs }),
    };
    this.owner = ownerIdentity(options.leaseMs ?? defaults.host.leaseMs, options.ownerId);
    const sideEffectMarginMs = options.sideEffectTimeoutMs ?? defaults.line.requestTimeoutMs;
    if (sideEffectMarginMs >= this.owner.leaseMs) {
      throw new RangeError(
        `the lease (${this.owner.leaseMs} ms) must be longer than a side effect's timeout (${sideEffectMarginMs} ms): docs/runtime.md, "Ownership"`,
      );
    }
    this.machine = provideSourceServices({
      store: options.store,
      conversation: provideConversationServices(options.services),
      settings: this.settings,
      owner: this.owner,
      sideEffectMarginMs,
      isOwnerGone: options.isOwnerGone ?? ownerProcessIsGone,
      backoff: options.backoff ?? defaultBackoff,
      idleEvictionMs: options.idleEvictionMs ?? defaults.host.idleEvictionMs,
      clock: options.clock,
      logger: this.logger,
      ...(options.enrich && { enrich: options.enrich }),
      ...(options.turnActivity && { turnActivity: options.turnActivity }),
      ...(options.onForget && { onForget: options.onForget }),
      ...(options.inspect && { inspect: options.inspect }),
      quarantineNotice: (message) => this.sendQuarantineNotice(message),
      countInboxAttempts: options.maxInboxAttempts !== undefined,
      // The same limit for a turn resumed after its process died (docs/runtime.md, "Poison").
      ...(options.maxInboxAttempts !== undefined && { maxTurnResumes: options.maxInboxAttempts }),
      ...(options.turnsUntil !== undefined && {
        turnFits: () => options.clock.now() + this.settings.turnDeadlineMs <= options.turnsUntil!,
      }),
      othersWaitForRoom: () => this.waiting.size > 0,
    });
  }

  /**
   * Claims each message's event id and appends it to its source's inbox (`acceptEvents`,
   * as the Lambda webhook does); once this resolves the messages are durable and the webhook
   * may answer. Then their sources run.
   */
  async accept(messages: readonly InboxItem[]): Promise<AcceptResult> {
    if (this.closed) throw new Error('the actor host is shut down');
    const taken = new Map<string, TakenSource>();
    return acceptEvents(this.acceptingStore(taken), messages, this.logger, (sourceId) =>
      this.notify(sourceId, taken.get(sourceId)),
    );
  }

  /**
   * "Source X has work": the inbox says what. `taken`: the accept took the source for this
   * process already, its lease counted from `leaseFrom`.
   */
  notify(sourceId: string, taken?: TakenSource): void {
    if (this.closed) return;
    if (!this.working.has(sourceId) && this.working.size >= this.maxWorkingSources) {
      // Its turn comes when a working source settles; by then it acquires afresh (the store
      // gives this owner back what it took in the accept), as a lease unrenewed meanwhile lapses.
      this.waiting.add(sourceId);
      return;
    }
    this.waiting.delete(sourceId);
    this.sourceFor(sourceId).send({ type: 'work.available', ...taken });
    this.evictBeyondCap();
  }

  /**
   * Looks at every source the store says has work (after a restart or a crash). Each one is
   * taken over only when its owner is gone; a live owner keeps it.
   */
  async recover(): Promise<number> {
    const sources = await this.options.store.sourcesWithWork();
    for (const sourceId of sources) this.notify(sourceId);
    if (sources.length > 0)
      this.logger.info('looking at sources with unfinished work', { sources: sources.length });
    return sources.length;
  }

  /** Resolves when every source in memory needs nothing more: released, or owned elsewhere. */
  whenSettled(): Promise<void> {
    if (this.allSettled()) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** The current snapshot of a live source's conversation. */
  snapshotOf(sourceId: string) {
    return this.sources.get(sourceId)?.getSnapshot().context.conversation?.getSnapshot();
  }

  /** Where a live source's lifecycle stands (the inspector shows it next to the conversation). */
  lifecycleOf(sourceId: string) {
    const snapshot = this.sources.get(sourceId)?.getSnapshot();
    if (!snapshot) return undefined;
    const { ownership, version, consumedKeys, failures } = snapshot.context;
    return {
      value: snapshot.value,
      owned: ownership !== undefined,
      ...(ownership && { fence: ownership.fence }),
      version,
      unconsumed: consumedKeys.length,
      failures,
    };
  }

  liveSources(): string[] {
    return [...this.sources.keys()];
  }

  /**
   * Stops taking work and lets running turns finish until the deadline; then stops every
   * conversation (no side effect starts after this) and releases what this process owns, so
   * another process resumes it at once from its last checkpoint.
   */
  async shutdown(deadlineMs: number = defaults.server.shutdownDeadlineMs): Promise<void> {
    this.closed = true;
    // Their messages wait in the inbox for the next start (or another process).
    this.waiting.clear();
    const settled = await withinMs(this.whenSettled(), deadlineMs);
    if (!settled) this.logger.warn('shutdown deadline reached; releasing sources with turns in progress');
    const stopped = [...this.sources.values()].map(
      (source) =>
        new Promise<void>((resolve) => source.subscribe({ complete: resolve, error: () => resolve() })),
    );
    for (const source of this.sources.values()) source.send({ type: 'shutdown' });
    if (!(await withinMs(Promise.all(stopped), Math.max(1000, deadlineMs))))
      this.logger.warn('releasing sources did not finish; their leases lapse by themselves');
    this.sources.clear();
  }

  /**
   * The store as `acceptEvents` sees it. A store that can take a source in its accept
   * (SQLite: one process per file) does so for a source idle here or not in memory, so its
   * turn starts without an `acquire` write; a source taken by this process already, or owned
   * at all, is only accepted (docs/runtime.md).
   */
  private acceptingStore(taken: Map<string, TakenSource>): Pick<SourceStore, 'accept'> {
    const store = this.options.store;
    if (!store.acceptAndAcquire) return store;
    return {
      accept: async (item) => {
        const sourceId = item.source.id;
        const live = this.sources.get(sourceId);
        if (
          taken.has(sourceId) ||
          this.waiting.has(sourceId) ||
          (live && !live.getSnapshot().matches('idle'))
        )
          return store.accept(item);
        // The lease counts from before the write: never later than the store's own judgement.
        const leaseFrom = this.options.clock.now();
        const result = await store.acceptAndAcquire!(item, ownerAt(this.owner, leaseFrom));
        if (result.ownership) taken.set(sourceId, { ownership: result.ownership, leaseFrom });
        return result.accepted;
      },
    };
  }

  private sourceFor(sourceId: string): SourceActor {
    const existing = this.sources.get(sourceId);
    if (existing) {
      // Least recently used first: a source that is used again moves to the end.
      this.sources.delete(sourceId);
      this.sources.set(sourceId, existing);
      return existing;
    }
    const source = createActor(this.machine, {
      input: {
        sourceId,
        rules: {
          queuePolicy: this.settings.queuePolicy,
          maxQueuedTurns: this.settings.maxQueuedTurns,
          ...(this.options.maxInboxAttempts !== undefined && { maxAttempts: this.options.maxInboxAttempts }),
        },
        forgetPolicy: this.options.forgetPolicy ?? defaults.line.forgetPolicy,
      },
    });
    // Started before it is watched: its first snapshot (idle, settled) is no news, and seen
    // between a waiting source's start and its `work.available` it resolved `whenSettled`.
    source.start();
    source.subscribe({
      next: (snapshot) => {
        if (!snapshot.hasTag(SETTLED_TAG)) this.working.add(sourceId);
        else {
          // It had its turn while others waited for its room: it waits behind them.
          if (snapshot.matches('gaveWay') && !this.closed) this.waiting.add(sourceId);
          this.stopWorking(sourceId);
        }
        this.onSourceChanged();
      },
      complete: () => {
        if (this.sources.get(sourceId) === source) this.sources.delete(sourceId);
        this.stopWorking(sourceId);
        this.onSourceChanged();
      },
      error: (error) => {
        this.logger.error('source actor failed', { sourceId, error });
        if (this.sources.get(sourceId) === source) this.sources.delete(sourceId);
        this.stopWorking(sourceId);
        this.onSourceChanged();
      },
    });
    this.sources.set(sourceId, source);
    return source;
  }

  /**
   * The notice for a quarantined message: a reply while its token may still work, a push
   * otherwise; keyed by the message, so a notice sent again is one message on LINE.
   */
  private async sendQuarantineNotice(message: InboundMessage): Promise<void> {
    await this.options.services.delivery.deliver(
      {
        source: message.source,
        turnId: `quarantine-${message.eventId}`,
        index: 0,
        texts: [defaults.host.quarantineNotice],
        ...(message.replyToken && { replyToken: message.replyToken, replyTokenIssuedAt: message.timestamp }),
      },
      AbortSignal.timeout(10_000),
    );
  }

  /** A source settled or left: its room goes to the sources waiting, once it is done notifying. */
  private stopWorking(sourceId: string) {
    if (!this.working.delete(sourceId) || this.waiting.size === 0) return;
    queueMicrotask(() => {
      for (const sourceId of this.waiting) {
        if (this.closed || this.working.size >= this.maxWorkingSources) return;
        this.waiting.delete(sourceId);
        this.notify(sourceId);
      }
    });
  }

  /** Over the cap, the least recently used sources that are idle leave memory (their state is durable). */
  private evictBeyondCap() {
    let excess = this.sources.size - this.maxLiveSources;
    for (const source of this.sources.values()) {
      if (excess <= 0) break;
      if (source.getSnapshot().matches('idle')) {
        source.send({ type: 'evict' });
        excess--;
      }
    }
  }

  private onSourceChanged() {
    if (this.settledWaiters.length > 0 && this.allSettled()) {
      for (const resolve of this.settledWaiters.splice(0)) resolve();
    }
  }

  private allSettled(): boolean {
    if (this.waiting.size > 0) return false;
    for (const source of this.sources.values()) if (!source.getSnapshot().hasTag(SETTLED_TAG)) return false;
    return true;
  }
}

async function withinMs(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([
    work.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return inTime;
}
