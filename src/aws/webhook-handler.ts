import { SSMClient } from '@aws-sdk/client-ssm';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ConfigError } from '../config/config-error.js';
import { readString } from '../config/env-readers.js';
import type { GroupAnswerPolicy } from '../line/webhook-events.js';
import { handleWebhook } from '../line/webhook-handling.js';
import { createLogger, type Logger } from '../logging/index.js';
import { acceptEvents } from '../persistence/accept-events.js';
import type { ConversationStore } from '../persistence/conversation-store.js';
import { SECRET_PARAMETERS, readWebhookConfig } from './lambda-config.js';
import { createLambdaStore } from './lambda-store.js';
import { SsmSecrets, withSecrets, type SecretReader } from './ssm-secrets.js';
import { webhookBotUserId } from './webhook-bot-identity.js';

export interface WebhookHandlerDependencies {
  readonly store: ConversationStore;
  /** The channel secret, read per request (cached) so a rotation is picked up. */
  readonly channelSecret: () => Promise<string>;
  readonly groupPolicy: GroupAnswerPolicy;
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
 * so LINE's 2 s are spent on one DynamoDB transaction per event. A store that is slow or
 * failing gets 500, and LINE redelivers; the claims make a redelivery harmless.
 */
export function createWebhookHandler(
  dependencies: () => Promise<WebhookHandlerDependencies>,
  // Logs that the handler cannot compose itself: no configured logger exists then.
  unavailableLogger: Logger = createLogger({ level: 'error' }),
) {
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    let parts: WebhookHandlerDependencies;
    let channelSecret: string;
    try {
      parts = await dependencies();
      channelSecret = await parts.channelSecret();
    } catch (error) {
      // Nothing was stored: LINE redelivers once the configuration or SSM is right.
      unavailableLogger.error('webhook unavailable: events not stored, LINE will redeliver', { error });
      return json(500, { message: 'webhook unavailable' });
    }
    const rawBody = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    const result = await handleWebhook(
      { rawBody, signature: headerOf(event, 'x-line-signature') },
      {
        channelSecret,
        accept: async (items) => {
          const { accepted, duplicates } = await withDeadline(
            acceptEvents(parts.store, items, parts.logger),
            parts.acceptDeadlineMs,
          );
          return { accepted, duplicates };
        },
        groupPolicy: parts.groupPolicy,
        logger: parts.logger,
        ...(parts.botUserId && { botUserId: parts.botUserId }),
        ...(parts.staleEventMs !== undefined && { staleEventMs: parts.staleEventMs }),
      },
    );
    return json(result.status, result.body);
  };
}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`events not stored within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
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
  secrets: SecretReader = new SsmSecrets({ client: new SSMClient({}) }),
): WebhookHandlerDependencies {
  const config = readWebhookConfig(env);
  const logger = createLogger({ level: config.logLevel });
  if (!readString(env, 'LINE_CHANNEL_SECRET') && !readString(env, SECRET_PARAMETERS.LINE_CHANNEL_SECRET)) {
    throw new ConfigError(SECRET_PARAMETERS.LINE_CHANNEL_SECRET, 'or LINE_CHANNEL_SECRET must be set');
  }
  return {
    // Tight per-attempt limits: a stalled call is retried, and the whole answer stays inside 2 s.
    store: createLambdaStore(
      config.dynamodb,
      { maxAttempts: 3, connectionTimeoutMs: 500, requestTimeoutMs: 1000 },
      undefined,
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

/** The Lambda entry point (`src/aws/webhook-handler.handler`): composed once per container. */
export const handler = createWebhookHandler(() => {
  // A failed composition (configuration, SSM) is tried again on the next request.
  composed ??= Promise.resolve()
    .then(() => webhookDependenciesFromEnv())
    .catch((error: unknown) => {
      composed = undefined;
      throw error;
    });
  return composed;
});
