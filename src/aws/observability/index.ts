export { createLambdaObservability } from './lambda-observability.js';
export type { LambdaObservability, LambdaObservabilityOptions } from './lambda-observability.js';
export { observedHandler, queueAgeMs } from './observed-handler.js';
export type { LambdaHandler } from './observed-handler.js';
export { withMetrics, METRIC_EVENTS } from './metrics-from-logs.js';
export { createPowertoolsLogger, powertoolsLogger } from './powertools-logger.js';
export { KaiwaLogFormatter } from './kaiwa-log-formatter.js';
export { lambdaLogLevel } from './lambda-log-level.js';
