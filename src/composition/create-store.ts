import type { KaiwaConfig } from '../config/index.js';
import {
  DynamoDbStore,
  FileStore,
  MemoryStore,
  createDynamoDbClient,
  type ConversationStore,
} from '../persistence/index.js';

/** The store the configuration names. */
export async function createStore(config: KaiwaConfig): Promise<ConversationStore> {
  switch (config.store.kind) {
    case 'memory':
      return new MemoryStore();
    case 'file':
      return FileStore.open(config.store.dataDir);
    case 'dynamodb': {
      const { table, endpoint, region, conversationTtlDays } = config.store.dynamodb;
      return new DynamoDbStore({
        client: createDynamoDbClient({ region, endpoint }),
        tableName: table,
        conversationTtlMs: conversationTtlDays * 86_400_000,
      });
    }
  }
}
