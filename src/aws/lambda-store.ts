import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDbConfig } from '../config/dynamodb-config.js';
import { DynamoDbSourceStore } from '../persistence/dynamodb-source-store.js';

/**
 * The worker's source store, from `DYNAMODB_*`: the same native DynamoDB adapter `npm start`
 * uses with `STORE=dynamodb` (docs/persistence.md), without the work index: on Lambda the work
 * queue says which source has work (docs/aws.md, "Cost per million turns"). The webhook and the
 * reminder function only accept: `createLambdaInboxWriter`. `client`: the worker's, shared with
 * its background-work ledger.
 */
export function createLambdaStore(config: DynamoDbConfig, client: DynamoDBClient): DynamoDbSourceStore {
  return new DynamoDbSourceStore({
    client,
    tableName: config.table,
    conversationTtlMs: config.conversationTtlDays * 86_400_000,
    workIndex: false,
  });
}
