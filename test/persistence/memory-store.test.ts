import { MemoryStore } from '../../src/persistence/index.js';
import { conversationStoreConformance } from './conversation-store.conformance.js';

conversationStoreConformance('memory', () => Promise.resolve(new MemoryStore()));
