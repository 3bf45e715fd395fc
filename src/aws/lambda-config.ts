import { ConfigError } from '../config/config-error.js';
import { defaults } from '../defaults/index.js';
import { readDynamoDbConfig, type DynamoDbConfig } from '../config/dynamodb-config.js';
import { readChoice, readInteger, readString, type Env } from '../config/env-readers.js';
import { readMaxInbox, readStaleEventMs } from '../config/webhook-checks-config.js';
import { LOG_LEVELS, type LogLevel } from '../logging/index.js';

// Settings of the Lambda functions. The webhook's reader must stay free of the Gemini SDK (its
// bundle is measured in KB), so it reads its few variables itself instead of `loadConfig`.

/** Where a secret comes from on Lambda: the variable kaiwa reads, and the one naming its SSM parameter. */
export const SECRET_PARAMETERS = {
  LINE_CHANNEL_SECRET: 'KAIWA_SSM_LINE_CHANNEL_SECRET',
  LINE_CHANNEL_ACCESS_TOKEN: 'KAIWA_SSM_LINE_CHANNEL_ACCESS_TOKEN',
  GEMINI_API_KEY: 'KAIWA_SSM_GEMINI_API_KEY',
} as const;
export type SecretVariable = keyof typeof SECRET_PARAMETERS;

export interface WebhookConfig {
  readonly dynamodb: DynamoDbConfig;
  readonly logLevel: LogLevel;
  readonly groupPolicy: { readonly mode: 'all' | 'mention'; readonly botName: string };
  /** Past this, the webhook answers 500 and LINE redelivers (LINE waits 2 s at most). */
  readonly acceptDeadlineMs: number;
  /** `KAIWA_STALE_EVENT_MS`: older messages are stored quiet, never answered. */
  readonly staleEventMs: number;
  /** `KAIWA_MAX_INBOX`: messages waiting per source before accept counts them instead. */
  readonly maxInbox: number;
}

export function readWebhookConfig(env: Env): WebhookConfig {
  return {
    dynamodb: readDynamoDbConfig(env, 'dynamodb'),
    logLevel: readChoice(env, 'LOG_LEVEL', LOG_LEVELS, defaults.server.logLevel),
    groupPolicy: {
      mode: readChoice(env, 'KAIWA_GROUP_ANSWER', ['all', 'mention'] as const, defaults.line.groupAnswer),
      botName: readString(env, 'KAIWA_BOT_NAME') ?? defaults.line.botName,
    },
    acceptDeadlineMs: readInteger(env, 'KAIWA_WEBHOOK_ACCEPT_DEADLINE_MS', 1500, { min: 100, max: 1900 }),
    staleEventMs: readStaleEventMs(env),
    maxInbox: readMaxInbox(env),
  };
}

export interface WorkerSettings {
  /** Kept free at the end of an invocation for the final persist (ms). */
  readonly persistMarginMs: number;
  /** Message groups (sources) one invocation drains at once. */
  readonly concurrency: number;
  /**
   * The work queue's visibility timeout (ms), when the template states it: the ownership
   * lease must lapse at least 30 s before a message comes back (docs/aws.md, "Timeouts").
   */
  readonly visibilityTimeoutMs: number | undefined;
  /** `KAIWA_WORK_QUEUE_URL`: where messages go back early when an invocation runs out of time. */
  readonly workQueueUrl: string | undefined;
  readonly scheduler: {
    readonly reminderGroup: string;
    /** The role EventBridge Scheduler assumes to invoke the targets. */
    readonly roleArn: string;
    /** The reminder function: what a reminder's schedule invokes. */
    readonly reminderFunctionArn: string;
    /** Where a schedule whose target cannot be invoked ends up. */
    readonly deadLetterArn: string | undefined;
  };
}

export function readWorkerSettings(env: Env): WorkerSettings {
  const visibilityTimeoutS = readString(env, 'KAIWA_WORKER_VISIBILITY_TIMEOUT_S');
  return {
    persistMarginMs: readInteger(env, 'KAIWA_WORKER_PERSIST_MARGIN_MS', 10_000, { min: 1000, max: 120_000 }),
    concurrency: readInteger(env, 'KAIWA_WORKER_CONCURRENCY', 10, { min: 1, max: 100 }),
    visibilityTimeoutMs:
      visibilityTimeoutS === undefined
        ? undefined
        : readInteger(env, 'KAIWA_WORKER_VISIBILITY_TIMEOUT_S', 0, { min: 1, max: 43_200 }) * 1000,
    workQueueUrl: readString(env, 'KAIWA_WORK_QUEUE_URL'),
    scheduler: {
      reminderGroup: required(env, 'KAIWA_REMINDER_SCHEDULE_GROUP'),
      roleArn: required(env, 'KAIWA_SCHEDULER_ROLE_ARN'),
      reminderFunctionArn: required(env, 'KAIWA_REMINDER_FUNCTION_ARN'),
      deadLetterArn: readString(env, 'KAIWA_DEAD_LETTER_QUEUE_ARN'),
    },
  };
}

function required(env: Env, name: string): string {
  const value = readString(env, name);
  if (value === undefined) throw new ConfigError(name, 'must be set (serverless.yml sets it on Lambda)');
  return value;
}
