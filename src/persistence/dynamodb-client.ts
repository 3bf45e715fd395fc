import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface DynamoDbClientSettings {
  readonly region: string;
  /** DynamoDB Local or another endpoint; the AWS endpoint of `region` when unset. */
  readonly endpoint?: string | undefined;
  /** Attempts per request, the first included (default 5). */
  readonly maxAttempts?: number;
  /** Per-attempt limits (ms): a stalled socket must not eat the webhook's 2 s. */
  readonly connectionTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
}

/** Credentials DynamoDB Local accepts (letters and digits only); it keys databases by access key and region. */
const LOCAL_CREDENTIALS = { accessKeyId: 'kaiwalocal', secretAccessKey: 'kaiwalocal' };

/**
 * The DynamoDB client kaiwa uses. Throttling and transient errors are retried by the SDK's
 * `standard` strategy: the failed request alone waits (exponential backoff with jitter). Not
 * `adaptive`: its client-side rate limiter, set from the rate measured so far, held every
 * later request of a young process back after one throttle (up to 0.6 s each, where 8 ms was
 * usual) — webhooks past LINE's 2 s, turns slowed for all sources (docs/persistence.md).
 * With a custom endpoint and no AWS credentials in the environment, fixed local credentials
 * are used, so DynamoDB Local works with no AWS set-up at all.
 */
export function createDynamoDbClient(
  settings: DynamoDbClientSettings,
  env: Readonly<Record<string, string | undefined>> = process.env,
): DynamoDBClient {
  const useLocalCredentials = settings.endpoint !== undefined && !env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE;
  return new DynamoDBClient({
    region: settings.region,
    ...(settings.endpoint !== undefined && { endpoint: settings.endpoint }),
    ...(useLocalCredentials && { credentials: LOCAL_CREDENTIALS }),
    maxAttempts: settings.maxAttempts ?? 5,
    retryMode: 'standard',
    requestHandler: {
      connectionTimeout: settings.connectionTimeoutMs ?? 1_000,
      requestTimeout: settings.requestTimeoutMs ?? 3_000,
      // Without it the SDK's request timeout only logs a warning and waits on.
      throwOnRequestTimeout: true,
    },
  });
}
