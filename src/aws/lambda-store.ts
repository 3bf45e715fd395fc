import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDbConfig } from '../config/dynamodb-config.js';
import { createDynamoDbClient, type DynamoDbClientSettings } from '../persistence/dynamodb-client.js';
import { DynamoDbSourceStore } from '../persistence/dynamodb-source-store.js';

/**
 * The source store the Lambda functions share, from `DYNAMODB_*`: the same native DynamoDB
 * adapter `npm start` uses with `STORE=dynamodb` (docs/persistence.md), without the work index:
 * on Lambda the work queue says which source has work (docs/aws.md, "Cost per million turns").
 */
export function createLambdaStore(
  config: DynamoDbConfig,
  limits: Partial<DynamoDbClientSettings> = {},
  client: DynamoDBClient = createDynamoDbClient({
    region: config.region,
    endpoint: config.endpoint,
    ...limits,
  }),
  options: { readonly maxInbox?: number } = {},
): DynamoDbSourceStore {
  return new DynamoDbSourceStore({
    client,
    tableName: config.table,
    conversationTtlMs: config.conversationTtlDays * 86_400_000,
    workIndex: false,
    ...options,
  });
}
