import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KaiwaConfig } from '../config/index.js';
import { createDynamoDbClient } from '../persistence/index.js';

/**
 * The DynamoDB table `npm start` processes share — sources, reminders, background work — through
 * one client for all three: `destroy` it when they are closed.
 */
export interface SharedTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

/** The shared table of `STORE=dynamodb`; none for the stores of one process. */
export function openSharedTable(config: KaiwaConfig): SharedTable | undefined {
  if (config.store.kind !== 'dynamodb') return undefined;
  const { table, endpoint, region } = config.store.dynamodb;
  return { client: createDynamoDbClient({ region, endpoint }), tableName: table };
}
