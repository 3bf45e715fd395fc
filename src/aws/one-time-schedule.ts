import type { CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { cronExpression, type Recurrence } from '../reminders/recurrence.js';
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
 * An EventBridge Scheduler schedule that fires at every occurrence of `recurrence` in its zone's
 * clock from `startAt` on, with `event` as the target's input (context attributes in it replaced
 * at each invocation), and stays until it is deleted: repeating reminders.
 */
export function recurringSchedule(params: {
  name: string;
  recurrence: Recurrence;
  startAt: number;
  event: unknown;
  target: ScheduleTarget;
  retry: { maximumAttempts: number; maximumEventAgeSeconds: number };
}): CreateScheduleCommandInput {
  const once = oneTimeSchedule({ ...params, at: params.startAt });
  return {
    ...once,
    ScheduleExpression: cronExpression(params.recurrence),
    ScheduleExpressionTimezone: params.recurrence.timeZone,
    StartDate: new Date(Math.ceil(params.startAt / 1000) * 1000),
    ActionAfterCompletion: 'NONE',
  };
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
