import type { Context, DynamoDBBatchResponse } from 'aws-lambda';
import { workerRuntimeProvider, type WorkerRuntime } from './lambda-runtime.js';
import { retryDelayMs, MIN_RETRY_DELAY_MS, type RetryScheduler } from './retry-scheduler.js';
import type { SourceOutcome } from './source-runner.js';
import { RetriesExhaustedError } from './retries-exhausted-error.js';
import {
  isRetryEvent,
  isStreamEvent,
  isSweepEvent,
  streamTriggers,
  type WorkerEvent,
} from './worker-events.js';

/** The parts of Lambda's context the worker uses. */
export type WorkerContext = Pick<Context, 'getRemainingTimeInMillis' | 'invokedFunctionArn' | 'awsRequestId'>;

/**
 * The worker. Its triggers only say "source X has work" — the inbox says what:
 * - a DynamoDB stream batch (inbox inserts): each named source runs; the batch never fails
 *   because of one source. A source left with work (out of time, or failing) gets a scheduled
 *   retry; only a source that could not even be handed to a retry is reported as a batch item
 *   failure, so Lambda re-delivers from its record on;
 * - a scheduled retry `{ kaiwa: 'retry', sourceId, attempt }`: the source runs again; still
 *   failing, it is scheduled again with a longer wait, and after the last attempt the event
 *   fails, so Lambda's asynchronous retries and then the dead-letter queue take it;
 * - the sweep `{ kaiwa: 'sweep' }`: every source the work index lists (a safety net for
 *   triggers lost to the dead-letter queue); it schedules nothing itself.
 * Each invocation stops its turns in time to persist them before Lambda's timeout.
 */
export function createWorkerHandler(runtime: () => Promise<WorkerRuntime>) {
  return async (
    event: WorkerEvent,
    context: WorkerContext,
  ): Promise<DynamoDBBatchResponse | { sources: number }> => {
    const current = await runtime();
    const deadlineAt =
      current.clock.now() + context.getRemainingTimeInMillis() - current.settings.persistMarginMs;
    const leases = current.leasesFor(context.awsRequestId);
    // One source's error (its lease, say) is that source's failure, never the batch's.
    const run = (sourceId: string, waitForLease = true): Promise<SourceOutcome> =>
      current.runSource(sourceId, deadlineAt, leases, { waitForLease }).catch((error: unknown) => {
        current.logger.error('source run failed', { sourceId, error });
        return { kind: 'unfinished', failing: true };
      });
    const retries = current.retries(context.invokedFunctionArn);

    if (isStreamEvent(event)) {
      const triggers = streamTriggers(event);
      const outcomes = await mapConcurrently(triggers, current.settings.concurrency, (trigger) =>
        run(trigger.sourceId),
      );
      const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
      await Promise.all(
        triggers.map(async (trigger, index) => {
          try {
            await followUp(current, retries, trigger.sourceId, 0, outcomes[index]!);
          } catch (error) {
            current.logger.error('no retry could be scheduled; the stream delivers the record again', {
              sourceId: trigger.sourceId,
              error,
            });
            batchItemFailures.push({ itemIdentifier: trigger.sequenceNumber });
          }
        }),
      );
      return { batchItemFailures };
    }
    if (isRetryEvent(event)) {
      if (event.attempt > current.settings.retryMaxAttempts)
        throw new RetriesExhaustedError(event.sourceId, event.attempt);
      const outcome = await run(event.sourceId);
      await followUp(current, retries, event.sourceId, event.attempt, outcome);
      return { sources: 1 };
    }
    if (isSweepEvent(event)) {
      const sources = await current.store.sourcesWithWork();
      // A source someone holds is being worked on: the sweep moves on at once.
      const outcomes = await mapConcurrently(sources, current.settings.concurrency, (sourceId) =>
        run(sourceId, false),
      );
      const left = sources.filter((_, index) => outcomes[index]!.kind === 'unfinished');
      current.logger.info('sweep done', { sources: sources.length, unfinished: left.length });
      return { sources: sources.length };
    }
    current.logger.error('unknown worker event; ignored', { keys: Object.keys(event ?? {}) });
    return { sources: 0 };
  };
}

/**
 * What a source needs after its run: nothing when settled; a retry when work is left. A
 * failing source's retries wait longer each time and end in the dead-letter queue; one that
 * merely ran out of time starts over at the first retry; one another worker holds is looked
 * at again once that lease has lapsed, with its attempt unchanged.
 */
async function followUp(
  runtime: WorkerRuntime,
  retries: RetryScheduler,
  sourceId: string,
  attempt: number,
  outcome: SourceOutcome,
): Promise<void> {
  const now = runtime.clock.now();
  const { retryMaxAttempts, retryMaxDelayMs } = runtime.settings;
  if (outcome.kind === 'settled') return;
  if (outcome.kind === 'leased') {
    await retries.schedule({
      sourceId,
      attempt,
      at: Math.max(now + MIN_RETRY_DELAY_MS, outcome.heldUntil + 1000),
    });
    runtime.logger.info('source busy in another worker; looking again later', { sourceId });
    return;
  }
  const next = outcome.failing ? attempt + 1 : 1;
  if (next > retryMaxAttempts) {
    runtime.logger.error('source keeps failing; giving up on scheduled retries', { sourceId, attempt });
    throw new RetriesExhaustedError(sourceId, attempt);
  }
  await retries.schedule({ sourceId, attempt: next, at: now + retryDelayMs(next, retryMaxDelayMs) });
  runtime.logger.info('retry scheduled', { sourceId, attempt: next, failing: outcome.failing });
}

/** Runs `work` on every item, at most `limit` at once; results in input order. */
async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** The Lambda entry point (`src/aws/worker-handler.handler`). */
export const handler = createWorkerHandler(workerRuntimeProvider());
