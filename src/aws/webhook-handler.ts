import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ConfigError } from '../config/config-error.js';
import { readString } from '../config/env-readers.js';
import type { GroupAnswerPolicy } from '../line/webhook-events.js';
import { handleWebhook } from '../line/webhook-handling.js';
import { createLogger, type Logger } from '../logging/index.js';
import { acceptEvents } from '../persistence/accept-events.js';
import type { SourceStore } from '../persistence/source-store.js';
import { DeadlineExceededError, withDeadline } from '../timing/index.js';
import { SECRET_PARAMETERS, readWebhookConfig } from './lambda-config.js';
import { createLambdaInboxWriter } from './lambda-inbox-writer.js';
import { createLambdaObservability, lambdaLogLevel, observedHandler } from './observability/index.js';
import { SsmSecrets, withSecrets, type SecretReader } from './ssm-secrets.js';
import { webhookBotUserId } from './webhook-bot-identity.js';

export interface WebhookHandlerDependencies {
  readonly store: Pick<SourceStore, 'accept'>;
  /** The channel secret, read per request (cached) so a rotation is picked up. */
  readonly channelSecret: () => Promise<string>;
  readonly groupPolicy: GroupAnswerPolicy;
  /** From the invocation's start: the channel secret's read and the events' storing both fit in it. */
  readonly acceptDeadlineMs: number;
  readonly logger: Logger;
  /** The bot's user id, the only `destination` accepted; undefined: unchecked. */
  readonly botUserId?: (() => Promise<string | undefined>) | undefined;
  /** Messages older than this when accepted are stored quiet, never answered (ms). */
  readonly staleEventMs?: number;
}

/**
 * `POST /webhook` behind API Gateway's HTTP API (payload format 2.0): verifies the signature,
 * claims every event and appends it to its source's inbox — the inbox insert is the hand-off
 * to the worker, through the table's stream — and only then answers 200. No turn runs here,
 * so LINE's 2 s are spent on one DynamoDB transaction per event. One budget
 * (`acceptDeadlineMs`, counted from the invocation's start) covers reading the channel secret
 * (SSM, cached) and storing the events: past it the answer is 500, nothing is lost, and LINE
 * redelivers; the claims make a redelivery harmless.
 */
export function createWebhookHandler(
  dependencies: () => Promise<WebhookHandlerDependencies>,
  // Logs that the handler cannot compose itself: no configured logger exists then.
  unavailableLogger: Logger = createLogger({ level: 'error' }),
  now: () => number = Date.now,
) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    const startedAt = now();
    let parts: WebhookHandlerDependencies;
    let channelSecret: string;
    let deadline: number;
    try {
      parts = await dependencies();
      deadline = startedAt + parts.acceptDeadlineMs;
      channelSecret = await withDeadline(parts.channelSecret(), { deadline, now });
    } catch (error) {
      // Nothing was stored: LINE redelivers once the configuration or SSM is right.
      unavailableLogger.error('webhook unavailable: events not stored, LINE will redeliver', {
        error: DeadlineExceededError.isInstance(error)
          ? new Error('the channel secret was not read within the accept budget', { cause: error })
          : error,
      });
      return json(500, { message: 'webhook unavailable' });
    }
    const rawBody = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    const result = await handleWebhook(
      { rawBody, signature: headerOf(event, 'x-line-signature') },
      {
        channelSecret,
        accept: async (items) => {
          const { accepted, duplicates } = await acceptEvents(parts.store, items, parts.logger);
          return { accepted, duplicates };
        },
        // What reading the secret left of the invocation's budget.
        acceptDeadline: deadline,
        groupPolicy: parts.groupPolicy,
        logger: parts.logger,
        ...(parts.botUserId && { botUserId: parts.botUserId }),
        ...(parts.staleEventMs !== undefined && { staleEventMs: parts.staleEventMs }),
      },
    );
    return json(result.status, result.body);
  };
}

/** API Gateway's HTTP API lowercases header names; a test or another proxy may not. */
function headerOf(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const headers = event.headers ?? {};
  return headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** The webhook's parts from the environment: the store, and the channel secret from SSM. */
export function webhookDependenciesFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  secrets: SecretReader = new SsmSecrets(),
  logger: Logger = createLogger({ level: readWebhookConfig(env).logLevel }),
): WebhookHandlerDependencies {
  const config = readWebhookConfig(env);
  if (!readString(env, 'LINE_CHANNEL_SECRET') && !readString(env, SECRET_PARAMETERS.LINE_CHANNEL_SECRET)) {
    throw new ConfigError(SECRET_PARAMETERS.LINE_CHANNEL_SECRET, 'or LINE_CHANNEL_SECRET must be set');
  }
  return {
    // Tight per-attempt limits: a stalled call is retried, and the whole answer stays inside 2 s.
    store: createLambdaInboxWriter(
      config.dynamodb,
      { maxAttempts: 3, connectionTimeoutMs: 500, requestTimeoutMs: 1000 },
      { maxInbox: config.maxInbox },
    ),
    channelSecret: async () =>
      (await withSecrets(env, secrets, ['LINE_CHANNEL_SECRET'])).LINE_CHANNEL_SECRET!,
    groupPolicy: config.groupPolicy,
    acceptDeadlineMs: config.acceptDeadlineMs,
    logger,
    botUserId: webhookBotUserId(env, secrets, logger),
    staleEventMs: config.staleEventMs,
  };
}

let composed: Promise<WebhookHandlerDependencies> | undefined;
const observability = createLambdaObservability({ level: lambdaLogLevel(process.env) });

/**
 * The Lambda entry point (`src/aws/webhook-handler.handler`): composed once per container,
 * logging through Powertools with each request's id and counting metrics (docs/aws.md).
 */
export const handler = observedHandler(
  observability,
  createWebhookHandler(() => {
    // A failed composition (configuration) is tried again on the next request.
    composed ??= Promise.resolve()
      .then(() => webhookDependenciesFromEnv(process.env, new SsmSecrets(), observability.logger))
      .catch((error: unknown) => {
        composed = undefined;
        throw error;
      });
    return composed;
  }, observability.logger),
);
