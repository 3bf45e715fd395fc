import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { LambdaObservability } from './lambda-observability.js';

/** A Lambda handler as kaiwa writes them; the context is optional so tests may leave it out. */
export type LambdaHandler<Event, Result> = (event: Event, context?: Context) => Promise<Result>;

/**
 * Wraps a handler so each invocation logs with its request id and cold start, counts
 * `ColdStart` once per container, records how long its oldest queue message or stream record
 * waited (`QueueAge`), and writes the invocation's metrics (EMF) when it ends — also when it
 * throws, which is logged once with the error before Lambda sees it.
 * @example
 * const observability = createLambdaObservability({ level: lambdaLogLevel(process.env) });
 * export const handler = observedHandler(observability, createWorkerHandler(...));
 */
export function observedHandler<Event, Result>(
  observability: LambdaObservability,
  handler: LambdaHandler<Event, Result>,
  now: () => number = Date.now,
): LambdaHandler<Event, Result> {
  const { powertools, metrics, logger } = observability;
  return async (event, context) => {
    if (context) {
      powertools.addContext(context);
      metrics.setFunctionName(context.functionName);
    }
    metrics.captureColdStartMetric();
    const age = queueAgeMs(event, now());
    if (age !== undefined) metrics.addMetric('QueueAge', MetricUnit.Milliseconds, age);
    try {
      return await handler(event, context);
    } catch (error) {
      logger.error('invocation failed', { error });
      throw error;
    } finally {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
  };
}

/**
 * The wait of the oldest record in a batch: an SQS message since it was sent (`SentTimestamp`,
 * ms), a DynamoDB stream record since it was written (`ApproximateCreationDateTime`, s).
 * Undefined for any other event.
 */
export function queueAgeMs(event: unknown, now: number): number | undefined {
  const records = (event as { Records?: unknown } | null)?.Records;
  if (!Array.isArray(records)) return undefined;
  const sentAt = records.flatMap((record: unknown) => {
    const sqs = Number((record as { attributes?: { SentTimestamp?: string } }).attributes?.SentTimestamp);
    if (Number.isFinite(sqs) && sqs > 0) return [sqs];
    const stream = (record as { dynamodb?: { ApproximateCreationDateTime?: number } }).dynamodb
      ?.ApproximateCreationDateTime;
    return typeof stream === 'number' ? [stream * 1000] : [];
  });
  return sentAt.length > 0 ? Math.max(0, now - Math.min(...sentAt)) : undefined;
}
