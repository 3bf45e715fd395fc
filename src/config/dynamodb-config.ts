import { ConfigError } from './config-error.js';
import { defaults } from '../defaults/index.js';
import { readInteger, readString, readUrl, type Env } from './env-readers.js';

/** The DynamoDB store's settings (read whatever `STORE` says; checked strictly only when it is `dynamodb`). */
export interface DynamoDbConfig {
  /** `DYNAMODB_TABLE`, default `kaiwa`. */
  readonly table: string;
  /** `DYNAMODB_ENDPOINT`: DynamoDB Local or another endpoint; unset → AWS's endpoint of the region. */
  readonly endpoint: string | undefined;
  /**
   * `AWS_REGION`. Required for `STORE=dynamodb` against AWS (Lambda always sets it): a
   * silent default could write to a table in the wrong region. With an endpoint, it
   * defaults to `us-east-1`, which DynamoDB Local accepts.
   */
  readonly region: string;
  /** `KAIWA_CONVERSATION_TTL_DAYS`: an idle conversation expires after this; 0 = never. */
  readonly conversationTtlDays: number;
}

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

export function readDynamoDbConfig(env: Env, storeKind: string): DynamoDbConfig {
  const table = readString(env, 'DYNAMODB_TABLE') ?? defaults.store.dynamodbTable;
  if (!TABLE_NAME.test(table)) {
    throw new ConfigError(
      'DYNAMODB_TABLE',
      `must be 3 to 255 letters, digits, "_", "-" or "." (got "${table}")`,
    );
  }
  const endpoint =
    readString(env, 'DYNAMODB_ENDPOINT') === undefined ? undefined : readUrl(env, 'DYNAMODB_ENDPOINT', '');
  const region = readString(env, 'AWS_REGION');
  if (region === undefined && storeKind === 'dynamodb' && endpoint === undefined) {
    throw new ConfigError(
      'AWS_REGION',
      'must be set for STORE=dynamodb (or set DYNAMODB_ENDPOINT for DynamoDB Local)',
    );
  }
  return {
    table,
    endpoint,
    region: region ?? defaults.store.localRegion,
    conversationTtlDays: readInteger(env, 'KAIWA_CONVERSATION_TTL_DAYS', defaults.store.conversationTtlDays, {
      min: 0,
      max: 3650,
    }),
  };
}
