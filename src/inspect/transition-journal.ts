import { randomBytes } from 'node:crypto';
import type { InspectionEvent } from 'xstate';
import { setMostRecent, type Clock, type JsonObject } from '../domain/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import { stateValueText } from './chart-model.js';
import type { JournalEntry, JournalStore } from './journal-store.js';

export interface TransitionJournalOptions {
  readonly store: JournalStore;
  readonly clock: Clock;
  readonly logger?: Logger;
  /** A few numbers from the actor's context, kept with each step for replay. */
  readonly summarize?: (context: unknown) => JsonObject | undefined;
  /** Sources whose last activity is remembered (the most recently active); 10,000 by default. */
  readonly rememberedSources?: number;
}

export type JournalListener = (sourceId: string, entry: JournalEntry) => void;

interface Tracker {
  text: string;
  since: number;
  /** The event of the macrostep under way, and whether any transition took it. */
  event?: { type: string; handled: boolean };
}

type TakenTransition = { source: { id: string }; target?: readonly { id: string }[]; eventType: string };

/**
 * Turns XState's inspection events into one journal per source: when each state was
 * entered and left, by which event, and how long the actor stayed. Only the source's own
 * actor is followed (not its tool and model children), and no event payload is kept —
 * the journal holds state names, event types and times, never message text or tokens.
 * Entries reach listeners (the live inspector) at once and the store soon after.
 * @example
 * const journal = new TransitionJournal({ store: new MemoryJournalStore(), clock });
 * new ActorHost({ ..., inspect: (sourceId, event) => journal.record(sourceId, event) });
 */
export class TransitionJournal {
  private readonly trackers = new Map<string, Tracker>();
  private readonly activity = new Map<string, number>();
  private readonly pending = new Map<string, JournalEntry[]>();
  private readonly flushing = new Map<string, Promise<void>>();
  private readonly listeners = new Set<JournalListener>();
  private readonly logger: Logger;
  private readonly idPrefix = randomBytes(4).toString('hex');
  private sequence = 0;

  constructor(private readonly options: TransitionJournalOptions) {
    this.logger = options.logger ?? silentLogger;
  }

  /** The host's `inspect` hook. Never throws: inspection must not break a turn. */
  record(sourceId: string, event: InspectionEvent): void {
    try {
      this.handle(sourceId, event);
    } catch (error) {
      this.logger.warn('transition journal could not record an inspection event', { error, sourceId });
    }
  }

  /** The source's journal, oldest first, including what is still being written. */
  async entries(sourceId: string): Promise<JournalEntry[]> {
    await this.flush(sourceId);
    return this.options.store.read(sourceId);
  }

  /** When the source's actor last did something in this process. */
  lastActivity(sourceId: string): number | undefined {
    return this.activity.get(sourceId);
  }

  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Waits until every entry recorded so far is in the store. */
  async close(): Promise<void> {
    await Promise.all(
      [...new Set([...this.pending.keys(), ...this.flushing.keys()])].map((id) => this.flush(id)),
    );
  }

  private handle(sourceId: string, event: InspectionEvent) {
    // Only the source's own actor: its invoked and spawned children have their own sessions.
    if (event.actorRef.sessionId !== event.rootId) return;
    const now = this.options.clock.now();
    switch (event.type) {
      case '@xstate.event': {
        const tracker = this.trackerOf(sourceId, now);
        tracker.event = { type: event.event.type, handled: false };
        return;
      }
      case '@xstate.microstep': {
        const tracker = this.trackerOf(sourceId, now);
        const transitions = event._transitions as unknown as TakenTransition[];
        // XState reports a microstep for an event nothing handles too: it has no transitions.
        if (event.event.type === 'xstate.stop' || transitions.length === 0) return;
        if (tracker.event) tracker.event.handled = true;
        const snapshot = event.snapshot as { value?: unknown; context?: unknown };
        const taken = transitions.find((transition) => (transition.target?.length ?? 0) > 0);
        const to = stateValueText(snapshot.value);
        if (!taken) {
          this.add(sourceId, {
            kind: 'event',
            time: now,
            event: event.event.type,
            from: tracker.text,
            to,
            toValue: jsonValue(snapshot.value),
          });
          return;
        }
        const eventless = taken.eventType === '';
        this.add(sourceId, {
          kind: 'transition',
          time: now,
          event: eventless ? 'always' : event.event.type,
          ...(eventless && { trigger: event.event.type }),
          from: tracker.text,
          to,
          toValue: jsonValue(snapshot.value),
          durationMs: Math.max(0, now - tracker.since),
          transition: {
            source: taken.source.id,
            targets: (taken.target ?? []).map((target) => target.id),
            eventType: taken.eventType,
          },
          ...this.summaryOf(snapshot.context),
        });
        tracker.text = to;
        tracker.since = now;
        return;
      }
      case '@xstate.snapshot': {
        const tracker = this.trackerOf(sourceId, now);
        const snapshot = event.snapshot as { value?: unknown; context?: unknown; status?: string };
        const to = stateValueText(snapshot.value);
        const base = { time: now, from: tracker.text, to, toValue: jsonValue(snapshot.value) };
        if (event.event.type === 'xstate.init') {
          this.add(sourceId, {
            ...base,
            kind: 'start',
            event: 'xstate.init',
            ...this.summaryOf(snapshot.context),
          });
          tracker.text = to;
          tracker.since = now;
        } else if (snapshot.status === 'stopped' || event.event.type === 'xstate.stop') {
          this.add(sourceId, {
            ...base,
            kind: 'stop',
            event: event.event.type,
            durationMs: now - tracker.since,
          });
          this.trackers.delete(sourceId);
          return;
        } else if (tracker.event && !tracker.event.handled) {
          this.add(sourceId, { ...base, kind: 'ignored', event: tracker.event.type });
        }
        tracker.event = undefined;
        return;
      }
      default:
        return;
    }
  }

  private trackerOf(sourceId: string, now: number): Tracker {
    let tracker = this.trackers.get(sourceId);
    if (!tracker) this.trackers.set(sourceId, (tracker = { text: '', since: now }));
    return tracker;
  }

  private summaryOf(context: unknown): { summary?: JsonObject } {
    const summary = this.options.summarize?.(context);
    return summary ? { summary } : {};
  }

  private add(sourceId: string, fields: Omit<JournalEntry, 'id'>) {
    const entry: JournalEntry = { id: `${this.idPrefix}-${(++this.sequence).toString(36)}`, ...fields };
    setMostRecent(this.activity, sourceId, entry.time, this.options.rememberedSources ?? 10_000);
    const queue = this.pending.get(sourceId);
    if (queue) queue.push(entry);
    else this.pending.set(sourceId, [entry]);
    this.scheduleFlush(sourceId);
    for (const listener of this.listeners) {
      try {
        listener(sourceId, entry);
      } catch (error) {
        this.logger.warn('journal listener failed', { error });
      }
    }
  }

  private scheduleFlush(sourceId: string) {
    if (this.flushing.has(sourceId)) return;
    const run = async () => {
      // Entries of one macrostep arrive in the same tick: one write for all of them.
      await Promise.resolve();
      for (;;) {
        const batch = this.pending.get(sourceId);
        if (!batch || batch.length === 0) {
          this.pending.delete(sourceId);
          this.flushing.delete(sourceId);
          return;
        }
        this.pending.delete(sourceId);
        try {
          await this.options.store.append(sourceId, batch);
        } catch (error) {
          this.logger.warn('transition journal write failed; entries dropped', { error, sourceId });
        }
      }
    };
    this.flushing.set(sourceId, run());
  }

  private async flush(sourceId: string) {
    while (this.flushing.has(sourceId)) await this.flushing.get(sourceId);
  }
}

function jsonValue(value: unknown): JsonObject | string {
  if (typeof value === 'string') return value;
  return value && typeof value === 'object' ? (JSON.parse(JSON.stringify(value)) as JsonObject) : '';
}
