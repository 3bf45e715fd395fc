import type { DynamoDbConfig } from '../config/dynamodb-config.js';
import { createDynamoDbClient, type DynamoDbClientSettings } from '../persistence/dynamodb-client.js';
import { DynamoDbInboxWriter } from '../persistence/dynamodb-inbox-writer.js';

/**
 * What the webhook and the reminder function write, from `DYNAMODB_*`: `accept` alone, without
 * the work index (as the worker's store), so their bundles carry none of the store's checkpoint,
 * ownership, history or migration code.
 */
export function createLambdaInboxWriter(
  config: DynamoDbConfig,
  limits: Partial<DynamoDbClientSettings> = {},
  options: { readonly maxInbox?: number } = {},
): DynamoDbInboxWriter {
  return new DynamoDbInboxWriter({
    client: createDynamoDbClient({ region: config.region, endpoint: config.endpoint, ...limits }),
    tableName: config.table,
    workIndex: false,
    ...options,
  });
}
