import type { CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { atExpression } from './schedule-names.js';

/** Where a one-time schedule delivers its event, and what happens when it cannot. */
export interface ScheduleTarget {
  readonly groupName: string;
  readonly targetArn: string;
  /** The role EventBridge Scheduler assumes to invoke the target. */
  readonly roleArn: string;
  readonly deadLetterArn?: string | undefined;
}

/**
 * An EventBridge Scheduler schedule that fires once at `at` (UTC, whole seconds) with `event`
 * as the target's input, and is deleted after it fired: reminders and source retries alike.
 */
export function oneTimeSchedule(params: {
  name: string;
  at: number;
  event: unknown;
  target: ScheduleTarget;
  retry: { maximumAttempts: number; maximumEventAgeSeconds: number };
}): CreateScheduleCommandInput {
  const { target } = params;
  return {
    Name: params.name,
    GroupName: target.groupName,
    ScheduleExpression: atExpression(params.at),
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: {
      Arn: target.targetArn,
      RoleArn: target.roleArn,
      Input: JSON.stringify(params.event),
      RetryPolicy: {
        MaximumRetryAttempts: params.retry.maximumAttempts,
        MaximumEventAgeInSeconds: params.retry.maximumEventAgeSeconds,
      },
      ...(target.deadLetterArn && { DeadLetterConfig: { Arn: target.deadLetterArn } }),
    },
  };
}
