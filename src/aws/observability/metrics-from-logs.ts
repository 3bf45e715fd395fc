import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { LogFields, Logger } from '../../logging/index.js';

type Counter = (metrics: Metrics, fields: LogFields) => void;

const count =
  (name: string): Counter =>
  (metrics) =>
    metrics.addMetric(name, MetricUnit.Count, 1);
const numberOf = (fields: LogFields, key: string) => {
  const value = fields[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
};
const add =
  (
    ...pairs: [metric: string, field: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit]][]
  ): Counter =>
  (metrics, fields) => {
    for (const [metric, field, unit] of pairs) {
      const value = numberOf(fields, field);
      if (value !== undefined) metrics.addMetric(metric, unit, value);
    }
  };
const delivered =
  (method?: 'reply' | 'push'): Counter =>
  (metrics, fields) => {
    const by = method ?? (fields.method === 'push' ? 'push' : 'reply');
    // A dimension for this one metric only: the others of the invocation stay undivided.
    metrics.singleMetric().addDimension('method', by).addMetric('Deliveries', MetricUnit.Count, 1);
  };
const both =
  (...counters: Counter[]): Counter =>
  (metrics, fields) => {
    for (const counter of counters) counter(metrics, fields);
  };

/**
 * The runtime's named log events and the metrics each one counts. The runtime already reports
 * every turn, model call and delivery through its `Logger` port with structured fields
 * (src/machines/conversation-services.ts, src/actors/source-services.ts, src/line/line-delivery.ts),
 * so on Lambda the metrics come from those events and the runtime needs no second port. A test
 * runs a real turn through kaiwa and checks these names still match what it logs.
 */
export const METRIC_EVENTS: Readonly<Partial<Record<string, Counter>>> = {
  'turn finished': count('Turns'),
  'turn stopped early': both(count('Turns'), count('TurnsStoppedEarly')),
  'model call': both(
    count('ModelCalls'),
    add(
      ['ModelCallDuration', 'durationMs', MetricUnit.Milliseconds],
      ['PromptTokens', 'promptTokens', MetricUnit.Count],
      ['OutputTokens', 'outputTokens', MetricUnit.Count],
      ['CachedTokens', 'cachedTokens', MetricUnit.Count],
    ),
  ),
  'model call failed': count('ModelCallFailures'),
  'reply sent': delivered(),
  'reply token already used: the reply was delivered': delivered('reply'),
  'push already delivered (409 for its retry key)': delivered('push'),
  'delivery failed': count('DeliveryFailures'),
  'source actor failed': count('SourceFailures'),
  'webhook accepted': add(
    ['EventsAccepted', 'accepted', MetricUnit.Count],
    ['EventsDuplicate', 'duplicates', MetricUnit.Count],
  ),
  'webhook signature rejected': count('SignaturesRejected'),
  'reminder due: in the inbox': count('RemindersDue'),
};

/**
 * A `Logger` that also counts metrics: each named event of `METRIC_EVENTS`, and every line at
 * `error` as `Failures`. Counted whatever the log level, so `LOG_LEVEL=error` keeps the metrics.
 * The metrics are written (as CloudWatch EMF) when the invocation ends (`observedHandler`).
 */
export function withMetrics(logger: Logger, metrics: Metrics): Logger {
  const observe = (message: string, fields: LogFields = {}) => {
    METRIC_EVENTS[message]?.(metrics, fields);
  };
  return {
    debug: (message, fields) => {
      observe(message, fields);
      logger.debug(message, fields);
    },
    info: (message, fields) => {
      observe(message, fields);
      logger.info(message, fields);
    },
    warn: (message, fields) => {
      observe(message, fields);
      logger.warn(message, fields);
    },
    error: (message, fields) => {
      observe(message, fields);
      metrics.addMetric('Failures', MetricUnit.Count, 1);
      logger.error(message, fields);
    },
    child: (fields) => withMetrics(logger.child(fields), metrics),
  };
}
