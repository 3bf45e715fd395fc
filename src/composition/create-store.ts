import type { KaiwaConfig } from '../config/index.js';
import {
  DynamoDbStore,
  FileStore,
  MemorySourceStore,
  SnapshotSourceStore,
  createDynamoDbClient,
  type SourceStore,
} from '../persistence/index.js';

/**
 * The store the configuration names. `file` and `dynamodb` still go through the first-wave
 * stores (one record per source, rewritten whole) until their native adapters land.
 */
export async function createStore(config: KaiwaConfig): Promise<SourceStore> {
  switch (config.store.kind) {
    case 'memory':
      return new MemorySourceStore();
    case 'file':
      return new SnapshotSourceStore(await FileStore.open(config.store.dataDir));
    case 'dynamodb': {
      const { table, endpoint, region, conversationTtlDays } = config.store.dynamodb;
      return new SnapshotSourceStore(
        new DynamoDbStore({
          client: createDynamoDbClient({ region, endpoint }),
          tableName: table,
          conversationTtlMs: conversationTtlDays * 86_400_000,
        }),
      );
    }
  }
}
