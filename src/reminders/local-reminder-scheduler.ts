import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock, InboundMessage } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import { reminderMessage, type Reminder } from './reminder.js';
import type { ReminderScheduler } from './reminder-scheduler.js';

export interface LocalReminderSchedulerOptions {
  /** Durably accepts the due reminder's message (the actor host's `accept`). */
  readonly deliver: (message: InboundMessage) => Promise<unknown>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A JSON file that keeps waiting reminders across restarts; memory only when absent. */
  readonly file?: string;
  /** Delay before retrying a reminder whose delivery failed (ms). */
  readonly retryMs?: number;
}

// Node's timers overflow past ~24.8 days: longer waits are re-armed in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Reminders for the local runtime: a timer per reminder, the list kept in a JSON file (written
 * atomically) so they survive a restart; one that fell due while kaiwa was down fires at start.
 */
export class LocalReminderScheduler implements ReminderScheduler {
  private readonly reminders = new Map<string, Reminder>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: LocalReminderSchedulerOptions) {}

  /** Loads the waiting reminders and arms their timers. */
  async start(): Promise<void> {
    for (const reminder of await this.read()) {
      this.reminders.set(reminder.id, reminder);
      this.arm(reminder);
    }
    if (this.reminders.size > 0)
      this.options.logger.info('reminders restored', { waiting: this.reminders.size });
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  async schedule(reminder: Reminder): Promise<void> {
    this.reminders.set(reminder.id, reminder);
    await this.persist();
    this.arm(reminder);
  }

  async cancel(sourceId: string, reminderId: string): Promise<boolean> {
    const reminder = this.reminders.get(reminderId);
    if (!reminder || reminder.source.id !== sourceId) return false;
    this.reminders.delete(reminderId);
    clearTimeout(this.timers.get(reminderId));
    this.timers.delete(reminderId);
    await this.persist();
    return true;
  }

  list(sourceId: string): Promise<Reminder[]> {
    return Promise.resolve(
      [...this.reminders.values()]
        .filter((reminder) => reminder.source.id === sourceId)
        .sort((a, b) => a.dueAt - b.dueAt),
    );
  }

  private arm(reminder: Reminder, delayMs = reminder.dueAt - this.options.clock.now()) {
    if (this.stopped) return;
    clearTimeout(this.timers.get(reminder.id));
    const wait = Math.max(0, Math.min(delayMs, MAX_TIMER_MS));
    const timer = setTimeout(() => {
      if (reminder.dueAt > this.options.clock.now()) this.arm(reminder);
      else void this.fire(reminder);
    }, wait);
    timer.unref();
    this.timers.set(reminder.id, timer);
  }

  private async fire(reminder: Reminder) {
    if (!this.reminders.has(reminder.id)) return;
    try {
      await this.options.deliver(reminderMessage(reminder, this.options.clock.now()));
      this.reminders.delete(reminder.id);
      this.timers.delete(reminder.id);
      await this.persist();
      this.options.logger.info('reminder due', { reminderId: reminder.id, sourceId: reminder.source.id });
    } catch (error) {
      // Kept: tried again shortly. The inbox claim makes a repeated delivery harmless.
      this.options.logger.error('reminder could not enter the inbox; retrying', {
        reminderId: reminder.id,
        error,
      });
      this.arm(reminder, this.options.retryMs ?? 5_000);
    }
  }

  private async read(): Promise<Reminder[]> {
    if (!this.options.file) return [];
    try {
      return JSON.parse(await readFile(this.options.file, 'utf8')) as Reminder[];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Writes the whole list, one write at a time, atomically (temporary file + rename). */
  private persist(): Promise<void> {
    const file = this.options.file;
    if (!file) return Promise.resolve();
    const content = JSON.stringify([...this.reminders.values()]);
    this.writing = this.writing.then(async () => {
      await mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, content);
      await rename(temporary, file);
    });
    return this.writing;
  }
}
