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
 * own strategy in `adaptive` mode: exponential backoff with jitter, plus a client-side rate
 * limiter that slows this process down while DynamoDB throttles it instead of hammering it.
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
    retryMode: 'adaptive',
    requestHandler: {
      connectionTimeout: settings.connectionTimeoutMs ?? 1_000,
      requestTimeout: settings.requestTimeoutMs ?? 3_000,
      // Without it the SDK's request timeout only logs a warning and waits on.
      throwOnRequestTimeout: true,
    },
  });
}
