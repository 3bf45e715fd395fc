import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import path from 'node:path';
import type { KaiwaConfig } from '../config/index.js';
import { defaults } from '../defaults/index.js';
import type { Logger } from '../logging/index.js';
import {
  createDynamoDbClient,
  DynamoDbSourceStore,
  MemorySourceStore,
  openSqliteSourceStore,
  type SourceStore,
} from '../persistence/index.js';

/** The file under `DATA_DIR` that holds the embedded store. */
export const SQLITE_FILE_NAME = 'kaiwa.db';

/**
 * The store the configuration names: SQLite for `npm start` (one process per file; a directory
 * written by the retired file store is imported on its first start), DynamoDB for several
 * processes, memory for tests. SQLite is loaded only when chosen, so Lambda bundles never load it.
 */
export async function createStore(
  config: KaiwaConfig,
  logger?: Logger,
  /** On DynamoDB, a client the caller shares with more of the table (it destroys it); else one of its own. */
  dynamoDbClient?: DynamoDBClient,
): Promise<SourceStore> {
  switch (config.store.kind) {
    case 'memory':
      return new MemorySourceStore({ maxInbox: config.store.maxInbox });
    case 'sqlite':
      return openSqliteSourceStore({
        maxInbox: config.store.maxInbox,
        file: path.join(config.store.dataDir, SQLITE_FILE_NAME),
        importFileStoreFrom: config.store.dataDir,
        // No webhook waits for the WAL to be copied into the file and synced (docs/persistence.md).
        checkpointIntervalMs: defaults.store.sqliteCheckpointIntervalMs,
        ...(logger && { logger }),
        // What DynamoDB's TTL does on AWS: idle conversations expire, old history is compacted.
        retention: {
          window: {
            maxEntries: config.conversation.maxHistoryEntries,
            maxBytes: config.conversation.maxHistoryBytes,
          },
          conversationTtlMs: config.store.conversationTtlDays * 86_400_000,
          logger,
        },
      });
    case 'dynamodb': {
      const { table, endpoint, region } = config.store.dynamodb;
      return new DynamoDbSourceStore({
        client: dynamoDbClient ?? createDynamoDbClient({ region, endpoint }),
        tableName: table,
        conversationTtlMs: config.store.conversationTtlDays * 86_400_000,
        maxInbox: config.store.maxInbox,
      });
    }
  }
}
