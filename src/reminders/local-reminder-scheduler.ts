import type { Clock, InboundMessage } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import { unkeptReminders, type ReminderList } from './reminder-list.js';
import { nextOccurrence, type Recurrence } from './recurrence.js';
import { reminderMessage, type Reminder } from './reminder.js';
import type { ReminderScheduler } from './reminder-scheduler.js';

export interface LocalReminderSchedulerOptions {
  /** Durably accepts the due reminder's message (the actor host's `accept`). */
  readonly deliver: (message: InboundMessage) => Promise<unknown>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Keeps waiting reminders across restarts (`reminders.db`); memory only when absent. */
  readonly list?: ReminderList;
  /** Delay before retrying a reminder whose delivery failed (ms). */
  readonly retryMs?: number;
}

interface WaitingReminder {
  readonly reminder: Reminder;
  timer?: NodeJS.Timeout;
}

// Node's timers overflow past ~24.8 days: longer waits are re-armed in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Reminders for the local runtime: a timer per reminder, each change written to the durable list
 * (one row set or removed) so they survive a restart; one that fell due while kaiwa was down
 * fires at start. A reminder is known by its source and its id together, so two chats'
 * reminders never replace each other, whatever their ids.
 */
export class LocalReminderScheduler implements ReminderScheduler {
  /** source id → reminder id → the reminder and its timer. */
  private readonly waiting = new Map<string, Map<string, WaitingReminder>>();
  private readonly kept: ReminderList;
  /** Due reminders waiting for their turn to be delivered, oldest first. */
  private readonly due: Reminder[] = [];
  /** The next delivery of `due`, one per turn of the event loop. */
  private nextDelivery: NodeJS.Immediate | undefined;
  private stopped = false;

  constructor(private readonly options: LocalReminderSchedulerOptions) {
    this.kept = options.list ?? unkeptReminders;
  }

  /** Loads the waiting reminders and arms their timers. */
  async start(): Promise<void> {
    const reminders = await this.kept.all();
    for (const reminder of reminders) this.add(reminder);
    if (reminders.length > 0) this.options.logger.info('reminders restored', { waiting: reminders.length });
  }

  stop(): void {
    this.stopped = true;
    for (const entry of this.entries()) clearTimeout(entry.timer);
    clearImmediate(this.nextDelivery);
    this.due.length = 0;
  }

  /** Fails, keeping nothing, when the list cannot be written: the caller tells the user so. */
  async schedule(reminder: Reminder): Promise<void> {
    const replaced = this.waiting.get(reminder.source.id)?.get(reminder.id)?.reminder;
    this.add(reminder);
    try {
      await this.kept.put(reminder);
    } catch (error) {
      if (this.current(reminder)) {
        this.remove(reminder);
        if (replaced) this.add(replaced);
      }
      throw error;
    }
  }

  /** Fails, keeping the reminder, when the list cannot be written: it still fires. */
  async cancel(sourceId: string, reminderId: string): Promise<boolean> {
    const entry = this.waiting.get(sourceId)?.get(reminderId);
    if (!entry) return false;
    this.remove(entry.reminder);
    try {
      await this.kept.remove(sourceId, reminderId);
    } catch (error) {
      if (!this.waiting.get(sourceId)?.has(reminderId)) this.add(entry.reminder);
      throw error;
    }
    return true;
  }

  list(sourceId: string): Promise<Reminder[]> {
    return Promise.resolve(
      [...(this.waiting.get(sourceId)?.values() ?? [])]
        .map((entry) => entry.reminder)
        .sort((a, b) => a.dueAt - b.dueAt),
    );
  }

  private add(reminder: Reminder) {
    const inSource = this.waiting.get(reminder.source.id) ?? new Map<string, WaitingReminder>();
    clearTimeout(inSource.get(reminder.id)?.timer);
    inSource.set(reminder.id, { reminder });
    this.waiting.set(reminder.source.id, inSource);
    this.arm(reminder);
  }

  private remove(reminder: Reminder) {
    const inSource = this.waiting.get(reminder.source.id);
    clearTimeout(inSource?.get(reminder.id)?.timer);
    inSource?.delete(reminder.id);
    if (inSource?.size === 0) this.waiting.delete(reminder.source.id);
  }

  private *entries() {
    for (const inSource of this.waiting.values()) yield* inSource.values();
  }

  private arm(reminder: Reminder, delayMs = reminder.dueAt - this.options.clock.now()) {
    const entry = this.waiting.get(reminder.source.id)?.get(reminder.id);
    if (this.stopped || entry?.reminder !== reminder) return;
    clearTimeout(entry.timer);
    const wait = Math.max(0, Math.min(delayMs, MAX_TIMER_MS));
    entry.timer = setTimeout(() => {
      if (reminder.dueAt > this.options.clock.now()) this.arm(reminder);
      else this.enqueue(reminder);
    }, wait);
    entry.timer.unref();
  }

  /**
   * Delivers due reminders one per turn of the event loop: a delivery starts a turn, and after a
   * restart thousands may be due at once — delivered together, they held the process for seconds
   * while webhooks waited (5,000: a webhook answered after 3.9 s; LINE waits 2 s).
   */
  private enqueue(reminder: Reminder) {
    this.due.push(reminder);
    this.nextDelivery ??= setImmediate(() => this.deliverNext());
  }

  private deliverNext() {
    this.nextDelivery = undefined;
    const reminder = this.due.shift();
    if (reminder) void this.fire(reminder);
    if (this.due.length > 0) this.nextDelivery = setImmediate(() => this.deliverNext());
  }

  private async fire(reminder: Reminder) {
    if (!this.current(reminder)) return;
    const context = { reminderId: reminder.id, sourceId: reminder.source.id };
    try {
      await this.options.deliver(reminderMessage(reminder, this.options.clock.now()));
    } catch (error) {
      // Kept: tried again shortly. The inbox claim makes a repeated delivery harmless.
      this.options.logger.error('reminder could not enter the inbox; retrying', { ...context, error });
      this.arm(reminder, this.options.retryMs ?? 5_000);
      return;
    }
    this.options.logger.info('reminder due', context);
    if (reminder.recurrence) {
      // Cancelled (or replaced) while this occurrence was on its way: the series has ended.
      if (this.current(reminder)) await this.repeat(reminder, reminder.recurrence);
      return;
    }
    this.remove(reminder);
    try {
      await this.kept.remove(reminder.source.id, reminder.id);
    } catch (error) {
      // In the inbox now; its row stays until a restart fires it again (the claim drops that).
      this.options.logger.error('reminder delivered, but not removed from the reminders list', {
        ...context,
        consequence: 'a restart fires it again; the inbox claim (kept 7 days) takes it once',
        error,
      });
    }
  }

  /**
   * A repeating reminder, once in the inbox, waits for its next occurrence after now: one that
   * fell due several times while kaiwa was down comes once, late, then keeps its rhythm.
   */
  private async repeat(reminder: Reminder, recurrence: Recurrence) {
    const following = {
      ...reminder,
      dueAt: nextOccurrence(recurrence, Math.max(reminder.dueAt, this.options.clock.now())),
    };
    this.add(following);
    try {
      await this.kept.put(following);
    } catch (error) {
      // Its row keeps this occurrence: a restart fires it again (the inbox claim drops it), then moves on.
      this.options.logger.error('repeating reminder delivered, but its next occurrence was not kept', {
        reminderId: reminder.id,
        sourceId: reminder.source.id,
        error,
      });
    }
  }

  private current(reminder: Reminder): boolean {
    return this.waiting.get(reminder.source.id)?.get(reminder.id)?.reminder === reminder;
  }
}
