import { randomUUID } from 'node:crypto';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SSMClient } from '@aws-sdk/client-ssm';
// Leaf modules of composition/ and persistence/, not their barrels: the Lambda bundles never
// load the local stores.
import { composeConversations } from '../composition/compose-conversations.js';
import { createModel } from '../composition/create-model.js';
import { ConfigError, loadConfig, type Env, type KaiwaConfig } from '../config/index.js';
import { systemClock, type Clock } from '../domain/index.js';
import { createLogger, type Logger } from '../logging/index.js';
import type { ModelPort } from '../model/index.js';
import { createDynamoDbClient } from '../persistence/dynamodb-client.js';
import type { DynamoDbStore } from '../persistence/dynamodb-store.js';
import { SnapshotSourceStore } from '../persistence/snapshot-source-store.js';
import type { Tool } from '../tools/index.js';
import { AwsReminderScheduler } from './aws-reminder-scheduler.js';
import { SECRET_PARAMETERS, readWorkerSettings, type WorkerSettings } from './lambda-config.js';
import { createLambdaStore } from './lambda-store.js';
import { EventBridgeRetryScheduler, type RetryScheduler } from './retry-scheduler.js';
import { SourceLeases } from './source-lease.js';
import { runSource, type SourceOutcome } from './source-runner.js';
import { SsmSecrets, withSecrets, type SecretReader } from './ssm-secrets.js';

/** Everything one worker invocation needs; composed once per container (and again when a secret rotates). */
export interface WorkerRuntime {
  readonly config: KaiwaConfig;
  readonly settings: WorkerSettings;
  readonly store: DynamoDbStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Runs one source until it settles, keeps failing, or `deadlineAt`, under the invocation's
   * leases; `waitForLease: false` skips a source another worker holds at once (the sweep).
   */
  runSource(
    sourceId: string,
    deadlineAt: number,
    leases: SourceLeases,
    options?: { waitForLease?: boolean },
  ): Promise<SourceOutcome>;
  /** Leases held in the name of one invocation. */
  leasesFor(invocationId: string): SourceLeases;
  /** Scheduled retries that invoke `targetArn` (the worker itself). */
  retries(targetArn: string): RetryScheduler;
}

/** Parts tests replace; on Lambda everything comes from the environment and SSM. */
export interface WorkerRuntimeOverrides {
  readonly secrets?: SecretReader;
  readonly scheduler?: SchedulerClient;
  readonly model?: ModelPort;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly tools?: readonly Tool[];
}

/**
 * The worker's composition: configuration from the environment with the secrets from SSM,
 * the DynamoDB store and leases, the model, the same tools, prompt, LINE channel and actor
 * host wiring as the local runtime (`composeConversations`), reminders and retries on
 * EventBridge Scheduler. The returned function gives the current runtime: the secrets are
 * re-read when their cache lapses, and a changed value composes a new runtime.
 */
export function workerRuntimeProvider(
  env: Env = process.env,
  overrides: WorkerRuntimeOverrides = {},
): () => Promise<WorkerRuntime> {
  const secrets = overrides.secrets ?? new SsmSecrets({ client: new SSMClient({}) });
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
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const { dynamodb } = config.store;
  const client = createDynamoDbClient({ region: dynamodb.region, endpoint: dynamodb.endpoint });
  const store = createLambdaStore(dynamodb, {}, client);
  const scheduler = overrides.scheduler ?? new SchedulerClient({});
  const reminders = new AwsReminderScheduler({
    client: scheduler,
    groupName: settings.scheduler.reminderGroup,
    targetArn: settings.scheduler.reminderFunctionArn,
    roleArn: settings.scheduler.roleArn,
    deadLetterArn: settings.scheduler.deadLetterArn,
  });
  const conversations = await composeConversations({
    config,
    // The first-wave DynamoDB store behind the source store port, until its native adapter lands.
    store: new SnapshotSourceStore(store),
    model: overrides.model ?? createModel(config, logger),
    line: {
      channelAccessToken: config.line.channelAccessToken,
      apiBaseUrl: config.line.apiBaseUrl,
      dataApiBaseUrl: config.line.dataApiBaseUrl,
    },
    reminders,
    clock,
    logger,
    ...(overrides.tools && { tools: overrides.tools }),
  });

  return {
    config,
    settings,
    store,
    clock,
    logger,
    leasesFor: (invocationId) =>
      new SourceLeases({
        client,
        tableName: dynamodb.table,
        owner: `${invocationId}:${randomUUID()}`,
        now: () => clock.now(),
      }),
    runSource: (sourceId, deadlineAt, leases, options = {}) =>
      runSource(sourceId, deadlineAt, {
        store,
        leases,
        // In-process retries are quick: a source that keeps failing goes to a scheduled retry instead.
        createHost: (watched, turnDeadlineMs) =>
          conversations.createHost({
            store: new SnapshotSourceStore(watched),
            turnDeadlineMs,
            backoff: { baseMs: 100, maxMs: 2000 },
            ownerId: `worker:${randomUUID()}`,
            // This invocation holds the source's lease: an owner recorded before it is gone.
            isOwnerGone: () => true,
          }),
        clock,
        logger,
        sourceAttempts: settings.sourceAttempts,
        persistMarginMs: settings.persistMarginMs,
        leaseWaitMs: options.waitForLease === false ? 0 : settings.leaseWaitMs,
        turnDeadlineMs: config.turnDeadlineMs,
      }),
    retries: (targetArn) =>
      new EventBridgeRetryScheduler({
        client: scheduler,
        groupName: settings.scheduler.retryGroup,
        targetArn,
        roleArn: settings.scheduler.roleArn,
        deadLetterArn: settings.scheduler.deadLetterArn,
      }),
  };
}
