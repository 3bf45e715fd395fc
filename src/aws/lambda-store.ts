import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDbConfig } from '../config/dynamodb-config.js';
import { createDynamoDbClient, type DynamoDbClientSettings } from '../persistence/dynamodb-client.js';
import { DynamoDbStore } from '../persistence/dynamodb-store.js';

/** The DynamoDB store the Lambda functions share, from `DYNAMODB_*` (and its client, for the leases). */
export function createLambdaStore(
  config: DynamoDbConfig,
  limits: Partial<DynamoDbClientSettings> = {},
  client: DynamoDBClient = createDynamoDbClient({
    region: config.region,
    endpoint: config.endpoint,
    ...limits,
  }),
  options: { readonly maxInbox?: number } = {},
): DynamoDbStore {
  return new DynamoDbStore({
    client,
    tableName: config.table,
    conversationTtlMs: config.conversationTtlDays * 86_400_000,
    ...options,
  });
}
