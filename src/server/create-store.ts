import type { KaiwaConfig } from '../config/index.js';
import { ConfigError } from '../config/index.js';
import { FileStore, MemoryStore, type ConversationStore } from '../persistence/index.js';

/** The store the configuration names. */
export async function createStore(config: KaiwaConfig): Promise<ConversationStore> {
  switch (config.store.kind) {
    case 'memory':
      return new MemoryStore();
    case 'file':
      return FileStore.open(config.store.dataDir);
    case 'dynamodb':
      throw new ConfigError('STORE', 'dynamodb is not available in this build yet; use memory or file');
  }
}
