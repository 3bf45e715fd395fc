import { randomBytes } from 'node:crypto';
import { CreateScheduleCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { oneTimeSchedule } from './one-time-schedule.js';
import { scheduleNamePart } from './schedule-names.js';
import type { RetryEvent } from './worker-events.js';

/** Asks for the worker to be invoked again for one source, later. */
export interface RetryScheduler {
  schedule(retry: {
    readonly sourceId: string;
    readonly attempt: number;
    readonly at: number;
  }): Promise<void>;
}

export interface EventBridgeRetrySchedulerOptions {
  readonly client: SchedulerClient;
  readonly groupName: string;
  /** The worker function's ARN (the invocation's own `invokedFunctionArn`). */
  readonly targetArn: string;
  /** The role EventBridge Scheduler assumes to invoke the worker. */
  readonly roleArn: string;
  /** Where the retry goes when the worker cannot be invoked at all. */
  readonly deadLetterArn?: string | undefined;
}

/** EventBridge Scheduler invokes targets with one-minute precision: no retry is sooner. */
export const MIN_RETRY_DELAY_MS = 60_000;

/** The wait before scheduled retry `attempt` (1, 2, …): a minute, doubling, capped. */
export function retryDelayMs(attempt: number, maxDelayMs: number): number {
  return Math.min(maxDelayMs, MIN_RETRY_DELAY_MS * 2 ** Math.max(0, Math.min(attempt - 1, 20)));
}

/**
 * Retries of a failing source as one-time EventBridge Scheduler schedules that invoke the
 * worker with `{ kaiwa: 'retry', sourceId, attempt }` and delete themselves afterwards. The
 * inbox keeps the work; a schedule only says "look at this source again". A retry invoked
 * twice is harmless: the lease and the inbox make the second one find nothing to do.
 */
export class EventBridgeRetryScheduler implements RetryScheduler {
  constructor(private readonly options: EventBridgeRetrySchedulerOptions) {}

  async schedule(retry: { sourceId: string; attempt: number; at: number }): Promise<void> {
    const event: RetryEvent = { kaiwa: 'retry', sourceId: retry.sourceId, attempt: retry.attempt };
    // Unique per retry: a name still held by a schedule that fired but is not yet deleted must not block the next one.
    const name = `${scheduleNamePart(retry.sourceId)}-${retry.attempt}-${randomBytes(6).toString('hex')}`;
    await this.options.client.send(
      new CreateScheduleCommand(
        oneTimeSchedule({
          name,
          at: retry.at,
          event,
          target: this.options,
          retry: { maximumAttempts: 10, maximumEventAgeSeconds: 3600 },
        }),
      ),
    );
  }
}
