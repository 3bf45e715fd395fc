import path from 'node:path';
import type { KaiwaConfig } from '../config/index.js';
import type { Clock, InboundMessage } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import {
  DynamoDbSharedReminders,
  LocalReminderScheduler,
  openSqliteReminderList,
  PolledReminderScheduler,
  type ReminderScheduler,
} from '../reminders/index.js';
import type { SharedTable } from './shared-table.js';

/** The SQLite file under `DATA_DIR` that keeps the waiting reminders of `npm start`. */
export const REMINDERS_FILE_NAME = 'reminders.db';

/** `npm start`'s reminders: the scheduler the tools use, started once the host takes messages. */
export interface LocalReminders {
  readonly scheduler: ReminderScheduler;
  start(): Promise<void>;
  /** Stops firing; `close` then lets go of what they are kept in. */
  stop(): void;
  close(): void;
}

/**
 * Where `npm start` keeps reminders, by its store (docs/persistence.md): on SQLite a file of their
 * own beside the store's (a previous release's JSON imported), timers in this one process; on
 * DynamoDB the table every process of the deployment shares (`sharedTable`), each reading what
 * falls due; in memory, nowhere (they live as long as the process).
 */
export async function openLocalReminders(
  config: KaiwaConfig,
  options: {
    deliver: (message: InboundMessage) => Promise<unknown>;
    clock: Clock;
    logger: Logger;
    sharedTable: SharedTable | undefined;
  },
): Promise<LocalReminders> {
  const { store } = config;
  const { sharedTable, ...context } = options;
  if (sharedTable) {
    const scheduler = new PolledReminderScheduler({
      ...context,
      reminders: new DynamoDbSharedReminders({ ...sharedTable, logger: context.logger }),
    });
    return {
      scheduler,
      start: () => scheduler.start(),
      stop: () => scheduler.stop(),
      close: () => undefined,
    };
  }
  const list =
    store.kind === 'sqlite'
      ? await openSqliteReminderList({
          file: path.join(store.dataDir, REMINDERS_FILE_NAME),
          importFrom: path.join(store.dataDir, 'reminders.json'),
          logger: options.logger,
        })
      : undefined;
  const scheduler = new LocalReminderScheduler({ ...context, ...(list && { list }) });
  return {
    scheduler,
    start: () => scheduler.start(),
    stop: () => scheduler.stop(),
    close: () => list?.close(),
  };
}
