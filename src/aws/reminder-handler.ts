import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { SourceStore } from '../persistence/source-store.js';
// Straight from the module: the reminders index would bring the tool registry (and ajv) into this bundle.
import { reminderMessage, type Reminder } from '../reminders/reminder.js';
import type { ReminderEvent } from './aws-reminder-scheduler.js';
import { createLambdaInboxWriter } from './lambda-inbox-writer.js';
import { readWebhookConfig } from './lambda-config.js';
import { createLambdaObservability, lambdaLogLevel, observedHandler } from './observability/index.js';

export interface ReminderHandlerDependencies {
  readonly store: Pick<SourceStore, 'accept'>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The target of a reminder's schedule: writes the due reminder's message to its source's
 * inbox through `store.accept`, like a webhook event. It runs no turn: the inbox's stream
 * record starts the worker, so the reminder is ordered with the user's own messages. Errors
 * are thrown: Lambda retries the asynchronous invocation, then the dead-letter queue keeps it.
 */
export function createReminderHandler(dependencies: () => Promise<ReminderHandlerDependencies>) {
  return async (event: unknown): Promise<{ accepted: boolean }> => {
    const { store, clock, logger } = await dependencies();
    if (!isReminderEvent(event)) {
      logger.error('not a reminder event; ignored', {
        keys: typeof event === 'object' && event !== null ? Object.keys(event) : typeof event,
      });
      return { accepted: false };
    }
    const reminder = event.reminder.recurrence
      ? { ...event.reminder, dueAt: occurrenceOf(event, clock.now(), logger) }
      : event.reminder;
    const accepted = await store.accept(reminderMessage(reminder, clock.now()));
    logger.info(accepted ? 'reminder due: in the inbox' : 'reminder already in the inbox', {
      reminderId: reminder.id,
      sourceId: reminder.source.id,
    });
    return { accepted };
  };
}

/**
 * A repeating reminder's occurrence: the time its schedule fired for (the schedule's input keeps
 * the first). Without it every occurrence would share the first's event id, and be claimed as
 * its duplicate: the current minute stands in, logged.
 */
function occurrenceOf(event: ReminderEvent, now: number, logger: Logger): number {
  const scheduled = Date.parse(event.scheduledTime ?? '');
  if (!Number.isNaN(scheduled)) return scheduled;
  logger.warn('repeating reminder without its scheduled time; the current minute stands in', {
    reminderId: event.reminder.id,
    sourceId: event.reminder.source.id,
  });
  return Math.floor(now / 60_000) * 60_000;
}

function isReminderEvent(event: unknown): event is ReminderEvent {
  if (typeof event !== 'object' || event === null) return false;
  const reminder = (event as Partial<ReminderEvent>).reminder as Partial<Reminder> | undefined;
  return (
    (event as Partial<ReminderEvent>).kaiwa === 'reminder' &&
    typeof reminder?.id === 'string' &&
    typeof reminder.text === 'string' &&
    typeof reminder.source?.id === 'string' &&
    typeof reminder.dueAt === 'number'
  );
}

let composed: Promise<ReminderHandlerDependencies> | undefined;
const observability = createLambdaObservability({ level: lambdaLogLevel(process.env) });

/**
 * The Lambda entry point (`src/aws/reminder-handler.handler`): composed once per container,
 * logging through Powertools with each request's id and counting `RemindersDue` (docs/aws.md).
 */
export const handler = observedHandler(
  observability,
  createReminderHandler(() => {
    composed ??= Promise.resolve().then(() => {
      const config = readWebhookConfig(process.env);
      return {
        store: createLambdaInboxWriter(config.dynamodb),
        clock: { now: () => Date.now() },
        logger: observability.logger,
      };
    });
    return composed;
  }),
);
