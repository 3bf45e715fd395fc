import type { DynamoDbConfig } from '../config/dynamodb-config.js';
import { createDynamoDbClient } from '../persistence/dynamodb-client.js';
import { DynamoDbSourceStore } from '../persistence/dynamodb-source-store.js';

/**
 * The worker's source store, from `DYNAMODB_*`: the same native DynamoDB adapter `npm start`
 * uses with `STORE=dynamodb` (docs/persistence.md), without the work index: on Lambda the work
 * queue says which source has work (docs/aws.md, "Cost per million turns"). The webhook and the
 * reminder function only accept: `createLambdaInboxWriter`.
 */
export function createLambdaStore(config: DynamoDbConfig): DynamoDbSourceStore {
  return new DynamoDbSourceStore({
    client: createDynamoDbClient({ region: config.region, endpoint: config.endpoint }),
    tableName: config.table,
    conversationTtlMs: config.conversationTtlDays * 86_400_000,
    workIndex: false,
  });
}
