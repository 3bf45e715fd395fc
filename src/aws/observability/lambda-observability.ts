import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Logger, LogLevel } from '../../logging/index.js';
import { withMetrics } from './metrics-from-logs.js';
import { createPowertoolsLogger, powertoolsLogger } from './powertools-logger.js';

/** A Lambda function's logger and metrics, made once per container. */
export interface LambdaObservability {
  /** kaiwa's `Logger` port: Powertools lines with the request id, counting metrics as it logs. */
  readonly logger: Logger;
  /** The Powertools Logger behind it (`observedHandler` gives it each invocation's context). */
  readonly powertools: PowertoolsLogger;
  /** Powertools Metrics, written as CloudWatch EMF at the end of each invocation. */
  readonly metrics: Metrics;
}

export interface LambdaObservabilityOptions {
  readonly level: LogLevel;
  /** The CloudWatch namespace of the metrics; `POWERTOOLS_METRICS_NAMESPACE` wins when set. */
  readonly namespace?: string;
  /** The `service` dimension and log field; `POWERTOOLS_SERVICE_NAME` wins when set. */
  readonly serviceName?: string;
}

/**
 * Logger and metrics for a Lambda function (docs/aws.md, "Logs, metrics and traces"). One
 * `service` dimension for every function keeps the custom metrics few (each name × dimension
 * set is a billed metric).
 */
export function createLambdaObservability(options: LambdaObservabilityOptions): LambdaObservability {
  const serviceName = options.serviceName ?? 'kaiwa';
  const powertools = createPowertoolsLogger({ serviceName, level: options.level });
  const metrics = new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? options.namespace ?? 'kaiwa',
    serviceName,
  });
  return { logger: withMetrics(powertoolsLogger(powertools), metrics), powertools, metrics };
}
