import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbConfig } from '../config/dynamodb-config.js';
import { createDynamoDbClient, type DynamoDbClientSettings } from '../persistence/dynamodb-client.js';
import { DynamoDbInboxWriter } from '../persistence/dynamodb-inbox-writer.js';
import { resolveSourceStoreOptions } from '../persistence/source-store-options.js';

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
  const client = createDynamoDbClient({ region: config.region, endpoint: config.endpoint, ...limits });
  return new DynamoDbInboxWriter(
    { documents: DynamoDBDocumentClient.from(client), tableName: config.table },
    { ...resolveSourceStoreOptions(options), workIndex: false },
  );
}
