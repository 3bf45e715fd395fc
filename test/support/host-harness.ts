import { ActorHost, type ActorHostOptions } from '../../src/actors/index.js';
import type { HistoryEntry, InboundMessage, Source } from '../../src/domain/index.js';
import { silentLogger } from '../../src/logging/index.js';
import type { ModelPort } from '../../src/model/index.js';
import { MemoryStore, type ConversationStore, type StoredConversation } from '../../src/persistence/index.js';
import { ToolRegistry, replyTool, skipTool } from '../../src/tools/index.js';
import { RecordingDelivery } from './conversation-harness.js';

export function createTestHost(options: {
  model: ModelPort;
  store?: ConversationStore;
  delivery?: RecordingDelivery;
  host?: Partial<ActorHostOptions>;
}) {
  const store = options.store ?? new MemoryStore();
  const delivery = options.delivery ?? new RecordingDelivery();
  const tools = new ToolRegistry().register(replyTool).register(skipTool);
  const host = new ActorHost({
    store,
    services: {
      model: options.model,
      tools,
      delivery,
      systemInstruction: () => 'test',
      clock: { now: () => Date.now() },
      logger: silentLogger,
    },
    clock: { now: () => Date.now() },
    backoff: { baseMs: 1, maxMs: 20 },
    ...options.host,
  });
  return { host, store, delivery };
}

let counter = 0;
export function messageFor(source: Source, text: string): InboundMessage {
  counter++;
  return {
    eventId: `evt-${counter}-${Math.random().toString(36).slice(2, 8)}`,
    source,
    sender: { userId: source.kind === 'user' ? source.id : 'U-member' },
    text,
    timestamp: Date.now(),
    replyToken: `token-${counter}`,
  };
}

export const userSourceNumber = (n: number): Source => ({
  kind: 'user',
  id: `U${String(n).padStart(32, '0')}`,
});

/** The history inside a stored conversation's snapshot. */
export function storedHistory(stored: StoredConversation | undefined): HistoryEntry[] {
  return (stored?.snapshot.context as unknown as { history?: HistoryEntry[] } | undefined)?.history ?? [];
}

export function userTexts(history: readonly HistoryEntry[]): string[] {
  return history.flatMap((entry) => (entry.role === 'user' ? [entry.text] : []));
}
