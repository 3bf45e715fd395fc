import { LogFormatter, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';

/**
 * Powertools' log items in kaiwa's shape: `time`, `level` (lower case), `message`, then what a
 * Lambda invocation adds — `requestId`, `coldStart`, `functionName`, `xrayTraceId` — then the
 * line's own fields, exactly as the local logger writes them (src/logging/logger.ts). One
 * shape means one set of CloudWatch Logs Insights queries, on Lambda and on a server.
 */
export class KaiwaLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    return new LogItem({
      attributes: {
        time: attributes.timestamp.toISOString(),
        level: attributes.logLevel.toLowerCase(),
        message: attributes.message,
        ...(context && {
          requestId: context.awsRequestId,
          coldStart: context.coldStart,
          functionName: context.functionName,
        }),
        ...(attributes.xRayTraceId && { xrayTraceId: attributes.xRayTraceId }),
      },
    }).addAttributes(additional);
  }
}
