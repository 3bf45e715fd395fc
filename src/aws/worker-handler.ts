import { createLambdaObservability, lambdaLogLevel, observedHandler } from './observability/index.js';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { workerRuntimeProvider, type WorkerRuntime } from './lambda-runtime.js';
import type { DrainOutcome } from './source-drain.js';
import { workGroups, type WorkGroup, type WorkMessage } from './work-queue-messages.js';

/** The parts of Lambda's context the worker uses. */
export type WorkerContext = Pick<Context, 'getRemainingTimeInMillis' | 'awsRequestId'>;

/**
 * The worker: a batch from the FIFO work queue, one message group per source (docs/aws.md).
 * A message only says "source X has work"; the inbox says what. Each group in the batch is
 * drained once — groups side by side, so a busy chat never holds up another — and each
 * message is done when its inbox item is: a message whose item still waits (the time ran out,
 * the source kept failing, another owner holds it) is a batch item failure, and so is every
 * later message of its group, so the queue hands them back in order after the visibility
 * timeout, and after `maxReceiveCount` to the dead-letter queue. Redelivery never doubles a
 * reply: the runtime's ownership, fences and durable intents see to that.
 *
 * Powertools' `SqsFifoPartialProcessor` (with `skipGroupOnError`) keeps the same per-group
 * rule, but runs the records one after another: a 10 s turn in one group would delay every
 * other group of the batch, so the grouping is done here.
 */
export function createWorkerHandler(runtime: () => Promise<WorkerRuntime>) {
  return async (event: SQSEvent, context: WorkerContext): Promise<SQSBatchResponse> => {
    const current = await runtime();
    const deadlineAt =
      current.clock.now() + context.getRemainingTimeInMillis() - current.settings.persistMarginMs;
    // Work a sandbox that died mid-invocation left running is told to its conversations first.
    await current.reportLeftBehind();
    const { groups, malformed } = workGroups(event);
    for (const record of malformed) {
      current.logger.error('work message without a message group; dropped (the inbox keeps the work)', {
        messageId: record.messageId,
      });
    }
    const failures = await mapConcurrently(groups, current.settings.concurrency, async (group) => {
      const outcome = await current
        .drain(group.sourceId, deadlineAt, context.awsRequestId)
        .catch((error: unknown): undefined => {
          current.logger.error('draining the source failed; its messages come back', {
            sourceId: group.sourceId,
            error,
          });
          return undefined;
        });
      const failed = failedMessages(group, outcome);
      if (failed.length === 0) return [];
      // Only the time ran out: the next invocation takes the source at once (it was released).
      // Anything else waits out the visibility timeout, a backoff before the next try.
      const outOfTime = outcome !== undefined && outcome.ended !== 'settled';
      current.logger.warn(
        outOfTime
          ? 'source unfinished at the end of the invocation; its messages come back at once'
          : 'source unfinished; its messages come back after the visibility timeout',
        {
          sourceId: group.sourceId,
          failed: failed.length,
          ...(outcome && { ended: outcome.ended, busy: outcome.busy, waiting: outcome.waiting.size }),
        },
      );
      if (outOfTime) await current.workQueue.returnNow(failed);
      return failed.map((message) => message.messageId);
    });
    // Tools' background work finishes into the inbox (the stream then starts its turn) while the
    // invocation lasts; a frozen sandbox would hold it for an unknown time, or for ever, so what
    // is left is reported interrupted (its conversation tells the user).
    await current.background.settled(Math.max(0, deadlineAt - current.clock.now()));
    await current.background.interrupt();
    return { batchItemFailures: failures.flat().map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

/**
 * The group's messages that failed: from the first whose inbox item still waits on (order
 * holds), or all of them while a turn is still in progress or the drain itself failed.
 */
function failedMessages(group: WorkGroup, outcome: DrainOutcome | undefined): readonly WorkMessage[] {
  if (!outcome || outcome.busy) return group.messages;
  const first = group.messages.findIndex(
    (message) => message.inboxKey !== undefined && outcome.waiting.has(message.inboxKey),
  );
  return first === -1 ? [] : group.messages.slice(first);
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

const observability = createLambdaObservability({ level: lambdaLogLevel(process.env) });

/**
 * The Lambda entry point (`src/aws/worker-handler.handler`): the runtime logs through Powertools
 * (request id, cold start), and its turns, model calls, tokens and deliveries become EMF metrics,
 * with the queue's age per batch (docs/aws.md).
 */
const worker = createWorkerHandler(workerRuntimeProvider(process.env, { logger: observability.logger }));
export const handler = observedHandler(observability, (event: SQSEvent, context?: Context) => {
  // Lambda always passes it: the drain's deadline is the invocation's remaining time.
  if (!context) throw new TypeError('the worker needs its Lambda context');
  return worker(event, context);
});
