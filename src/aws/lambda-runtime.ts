import { randomUUID } from 'node:crypto';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { ownerIdentity } from '../actors/source-owner.js';
import { bot } from '../bot/index.js';
// Leaf modules of composition/ and persistence/, not their barrels: the Lambda bundles never
// load the local stores.
import { composeConversations } from '../composition/compose-conversations.js';
import { createModel } from '../composition/create-model.js';
import { DynamoDbBackgroundLedger } from '../composition/dynamodb-background-ledger.js';
import { ConfigError, loadConfig, type Env, type KaiwaConfig } from '../config/index.js';
import { defaults } from '../defaults/index.js';
import { systemClock, type Clock } from '../domain/index.js';
import { createLogger, type Logger } from '../logging/index.js';
import type { ModelPort } from '../model/index.js';
import { createDynamoDbClient } from '../persistence/dynamodb-client.js';
import type { SourceStore } from '../persistence/source-store.js';
import type { BackgroundWork, Tool } from '../tools/index.js';
import { AwsReminderScheduler, schedulerClientWithTimeouts } from './aws-reminder-scheduler.js';
import { SECRET_PARAMETERS, readWorkerSettings, type WorkerSettings } from './lambda-config.js';
import { createLambdaStore } from './lambda-store.js';
import { drainSource, type DrainOutcome } from './source-drain.js';
import { SsmSecrets, withSecrets, type SecretReader } from './ssm-secrets.js';
import { sqsClientWithTimeouts, workQueueReturns, type WorkQueueReturns } from './work-queue-visibility.js';

/** How long before a message comes back the ownership lease must have lapsed (docs/aws.md, "Timeouts"). */
export const LEASE_BEFORE_VISIBILITY_MS = 30_000;

/** Everything one worker invocation needs; composed once per container (and again when a secret rotates). */
export interface WorkerRuntime {
  readonly config: KaiwaConfig;
  readonly settings: WorkerSettings;
  readonly store: SourceStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Hands work messages back before their visibility timeout (an invocation out of time). */
  readonly workQueue: WorkQueueReturns;
  /** Tools' work still running after their calls answered: the invocation waits for it. */
  readonly background: BackgroundWork;
  /**
   * Reports the background work a sandbox that died mid-invocation left (its lease ran out) to
   * its conversations; at most once a lease per container. Never throws.
   */
  reportLeftBehind(): Promise<number>;
  /**
   * Drains one source with a fresh actor host owned by this invocation, until it settles or
   * `deadlineAt`; no turn starts that could not end by then.
   */
  drain(sourceId: string, deadlineAt: number, invocationId: string): Promise<DrainOutcome>;
}

/** Parts tests replace; on Lambda everything comes from the environment and SSM. */
export interface WorkerRuntimeOverrides {
  readonly secrets?: SecretReader;
  readonly scheduler?: SchedulerClient;
  readonly sqs?: SQSClient;
  readonly model?: ModelPort;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** The bot's own tools instead of those of `src/bot`. */
  readonly tools?: readonly Tool[];
  /** The bot's persona instead of that of `src/bot` (`KAIWA_PERSONA_FILE` still wins). */
  readonly persona?: string;
}

/**
 * The worker's composition: configuration from the environment with the secrets from SSM,
 * the native DynamoDB source store, the model, and the same tools, prompt, LINE channel and
 * actor host wiring as the local runtime (`composeConversations`); reminders on EventBridge
 * Scheduler. The returned function gives the current runtime: the secrets are re-read when
 * their cache lapses, and a changed value composes a new runtime.
 */
export function workerRuntimeProvider(
  env: Env = process.env,
  overrides: WorkerRuntimeOverrides = {},
): () => Promise<WorkerRuntime> {
  // The default client has timeouts (ssmClientWithTimeouts): a stalled SSM must not eat the invocation.
  const secrets = overrides.secrets ?? new SsmSecrets();
  let current: { key: string; runtime: Promise<WorkerRuntime> } | undefined;
  return async () => {
    const withValues = await withSecrets(env, secrets, [
      'LINE_CHANNEL_SECRET',
      'LINE_CHANNEL_ACCESS_TOKEN',
      'GEMINI_API_KEY',
    ]);
    const key = JSON.stringify([withValues.LINE_CHANNEL_ACCESS_TOKEN, withValues.GEMINI_API_KEY]);
    if (current?.key !== key) {
      const runtime = composeWorker(withValues, overrides);
      current = { key, runtime };
      runtime.catch(() => {
        if (current?.runtime === runtime) current = undefined;
      });
    }
    return current.runtime;
  };
}

async function composeWorker(env: Env, overrides: WorkerRuntimeOverrides): Promise<WorkerRuntime> {
  const config = loadConfig(env, { store: 'dynamodb' });
  if (config.store.kind !== 'dynamodb') throw new ConfigError('STORE', 'must be dynamodb on Lambda');
  if (config.line.mode !== 'channel') {
    throw new ConfigError(
      SECRET_PARAMETERS.LINE_CHANNEL_ACCESS_TOKEN,
      'must name the channel access token on Lambda',
    );
  }
  const settings = readWorkerSettings(env);
  if (
    settings.visibilityTimeoutMs !== undefined &&
    config.leaseMs > settings.visibilityTimeoutMs - LEASE_BEFORE_VISIBILITY_MS
  ) {
    throw new ConfigError(
      'KAIWA_LEASE_MS',
      `must be at most the visibility timeout less ${LEASE_BEFORE_VISIBILITY_MS / 1000} s, so a message that comes back finds the source free`,
    );
  }
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const { region, endpoint, table } = config.store.dynamodb;
  // One client for the store and the background-work ledger: the same table.
  const dynamodb = createDynamoDbClient({ region, endpoint });
  const store = createLambdaStore(config.store.dynamodb, dynamodb);
  const scheduler = overrides.scheduler ?? schedulerClientWithTimeouts();
  const reminders = new AwsReminderScheduler({
    client: scheduler,
    groupName: settings.scheduler.reminderGroup,
    targetArn: settings.scheduler.reminderFunctionArn,
    roleArn: settings.scheduler.roleArn,
    deadLetterArn: settings.scheduler.deadLetterArn,
  });
  // This container notes its pieces of background work in the table while an invocation runs
  // them; any container reports those of one that died mid-invocation, once their lease ran out.
  const backgroundLedger = new DynamoDbBackgroundLedger({
    client: dynamodb,
    tableName: table,
    owner: ownerIdentity(config.leaseMs, `worker:${randomUUID()}`),
    // Another sandbox's processes are invisible from here: gone only when its lease ran out.
    isOwnerGone: () => false,
    clock,
    logger,
  });
  const conversations = await composeConversations({
    backgroundLedger,
    config,
    store,
    model: overrides.model ?? createModel(config, logger),
    line: {
      channelAccessToken: config.line.channelAccessToken,
      apiBaseUrl: config.line.apiBaseUrl,
      dataApiBaseUrl: config.line.dataApiBaseUrl,
    },
    reminders,
    clock,
    logger,
    // The bot of `src/bot`, as `npm start` runs it: its tools and persona go into the bundle.
    tools: overrides.tools ?? bot.tools,
    persona: overrides.persona ?? bot.persona,
    // A cold worker compiles only the schemas of the tools its turns call (docs/PERFORMANCE.md).
    compileTools: 'on-first-call',
  });

  let nextReportAt = 0;
  return {
    config,
    settings,
    store,
    background: conversations.background,
    reportLeftBehind: () => {
      const now = clock.now();
      if (now < nextReportAt) return Promise.resolve(0);
      nextReportAt = now + config.leaseMs;
      return conversations.background.reportLeftBehind();
    },
    clock,
    logger,
    workQueue: workQueueReturns({
      client: overrides.sqs ?? sqsClientWithTimeouts(),
      queueUrl: settings.workQueueUrl,
      logger,
    }),
    drain: (sourceId, deadlineAt, invocationId) =>
      drainSource(sourceId, {
        store,
        createHost: () =>
          conversations.createHost({
            turnsUntil: deadlineAt,
            // A message that kills its invocation comes back: count, and set it aside after a few.
            maxInboxAttempts: defaults.host.maxInboxAttempts,
            // Store failures are retried quickly; what is still failing at the deadline comes back with its message.
            backoff: { baseMs: 100, maxMs: 2000 },
            ownerId: `worker:${invocationId}:${randomUUID().slice(0, 8)}`,
            // Another sandbox's processes are invisible from here: an owner is gone only when its lease ran out.
            isOwnerGone: () => false,
          }),
        deadlineAt,
        persistMarginMs: settings.persistMarginMs,
        clock,
        logger,
      }),
  };
}
