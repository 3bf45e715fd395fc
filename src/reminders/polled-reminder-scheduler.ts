import { randomUUID } from 'node:crypto';
import type { Clock, InboundMessage } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import { nextOccurrence } from './recurrence.js';
import { reminderMessage, type Reminder } from './reminder.js';
import type { ReminderScheduler } from './reminder-scheduler.js';
import type { SharedReminders } from './shared-reminders.js';

export interface PolledReminderSchedulerOptions {
  readonly reminders: SharedReminders;
  /** Durably accepts the due reminder's message (the actor host's `accept`). */
  readonly deliver: (message: InboundMessage) => Promise<unknown>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How often the shared reminders are read for those due before the next read (ms). */
  readonly pollMs?: number;
  /** Reminders armed per read at most: a backlog after downtime comes a batch at a time. */
  readonly batch?: number;
}

/** Every reminder set through any process is fired within this much of its time by the others. */
const DEFAULT_REMINDER_POLL_MS = 10_000;
const DEFAULT_BATCH = 500;
/** Deliveries in flight at once: a backlog after downtime must not crowd out the webhooks. */
const DELIVERIES_AT_ONCE = 4;
/** How long a process holds an occurrence it is delivering: a dead one's passes to another then. */
const CLAIM_MS = 30_000;

/** A reminder this process will fire: its timer until it is due, then none while it is delivered. */
interface Armed {
  readonly reminder: Reminder;
  timer?: NodeJS.Timeout;
}

/**
 * Reminders shared by several processes (`npm start` on DynamoDB): each process reads the
 * reminders falling due before its next read and fires them on time, whichever process set
 * them. Just before it fires, a process claims the occurrence in the shared list — not if it was
 * cancelled, replaced or moved on meanwhile, or another process holds it — so one process offers
 * it to the inbox (whose claim on its event id would take it once anyway); the shared list then
 * moves it on once. A process that dies holding a claim leaves it to run out (30 s).
 */
export class PolledReminderScheduler implements ReminderScheduler {
  /** By source, reminder and occurrence: armed, queued or being delivered. */
  private readonly armed = new Map<string, Armed>();
  private readonly queue: Reminder[] = [];
  private delivering = 0;
  private readonly lifetime = new AbortController();
  private poller: NodeJS.Timeout | undefined;
  private readonly pollMs: number;
  /** This scheduler, as the claims on the occurrences it delivers name it. */
  private readonly claimant = randomUUID();

  constructor(private readonly options: PolledReminderSchedulerOptions) {
    this.pollMs = options.pollMs ?? DEFAULT_REMINDER_POLL_MS;
  }

  /** Arms what is due soon (one that fell due while every process was down: at once), then polls. */
  async start(): Promise<void> {
    await this.poll();
    if (this.lifetime.signal.aborted) return;
    this.poller = setInterval(() => void this.poll(), this.pollMs);
    this.poller.unref();
  }

  stop(): void {
    this.lifetime.abort();
    clearInterval(this.poller);
    for (const armed of this.armed.values()) clearTimeout(armed.timer);
    this.queue.length = 0;
  }

  /** Fails, keeping nothing new, when the shared list cannot be written: the caller tells the user so. */
  async schedule(reminder: Reminder): Promise<void> {
    await this.options.reminders.put(reminder);
    this.disarm(reminder.source.id, reminder.id);
    if (reminder.dueAt <= this.options.clock.now() + this.pollMs) this.arm(reminder);
  }

  async cancel(sourceId: string, reminderId: string): Promise<boolean> {
    const removed = await this.options.reminders.remove(sourceId, reminderId);
    this.disarm(sourceId, reminderId);
    return removed;
  }

  list(sourceId: string): Promise<Reminder[]> {
    return this.options.reminders.ofSource(sourceId);
  }

  private async poll(): Promise<void> {
    const { reminders, clock, logger } = this.options;
    try {
      const due = await reminders.dueBy(clock.now() + this.pollMs, this.options.batch ?? DEFAULT_BATCH);
      for (const reminder of due) this.arm(reminder);
    } catch (error) {
      logger.error('reminders could not be read; tried again at the next poll', { error });
    }
  }

  private arm(reminder: Reminder): void {
    const key = occurrenceKey(reminder);
    if (this.lifetime.signal.aborted || this.armed.has(key)) return;
    const armed: Armed = { reminder };
    armed.timer = setTimeout(
      () => {
        armed.timer = undefined;
        this.queue.push(reminder);
        this.deliverQueued();
      },
      Math.max(0, reminder.dueAt - this.options.clock.now()),
    );
    armed.timer.unref();
    this.armed.set(key, armed);
  }

  /** Forgets the timers of a reminder changed here; one on its way is checked before it fires. */
  private disarm(sourceId: string, reminderId: string): void {
    for (const [key, armed] of this.armed) {
      if (armed.timer && armed.reminder.source.id === sourceId && armed.reminder.id === reminderId) {
        clearTimeout(armed.timer);
        this.armed.delete(key);
      }
    }
  }

  private deliverQueued(): void {
    while (this.delivering < DELIVERIES_AT_ONCE && !this.lifetime.signal.aborted) {
      const reminder = this.queue.shift();
      if (!reminder) return;
      this.delivering++;
      void this.fire(reminder).finally(() => {
        this.delivering--;
        // Whatever happened, the next poll finds it again if it still waits.
        this.armed.delete(occurrenceKey(reminder));
        this.deliverQueued();
      });
    }
  }

  private async fire(reminder: Reminder): Promise<void> {
    const { reminders, clock, logger } = this.options;
    const context = { reminderId: reminder.id, sourceId: reminder.source.id, dueAt: reminder.dueAt };
    try {
      const at = clock.now();
      if (!(await reminders.claim(reminder, { by: this.claimant, at, until: at + CLAIM_MS }))) {
        logger.debug('reminder cancelled, replaced, moved on or being delivered elsewhere', context);
        return;
      }
      await this.options.deliver(reminderMessage(reminder, clock.now()));
    } catch (error) {
      logger.error('reminder could not enter the inbox; the next poll tries again', { ...context, error });
      return;
    }
    logger.info('reminder due', context);
    const nextDueAt =
      reminder.recurrence && nextOccurrence(reminder.recurrence, Math.max(reminder.dueAt, clock.now()));
    try {
      await reminders.delivered(reminder, nextDueAt);
    } catch (error) {
      logger.error('reminder delivered, but not moved on in the shared list', {
        ...context,
        consequence: 'the next poll fires it again; the inbox claim (kept 7 days) takes it once',
        error,
      });
    }
  }
}

function occurrenceKey(reminder: Reminder): string {
  return `${reminder.source.id}\u0000${reminder.id}\u0000${reminder.dueAt}`;
}
