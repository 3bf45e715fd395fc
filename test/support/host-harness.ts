import { ActorHost, type ActorHostOptions } from '../../src/actors/index.js';
import type { HistoryEntry, InboundMessage, Source } from '../../src/domain/index.js';
import { silentLogger, type Logger } from '../../src/logging/index.js';
import type { ModelPort } from '../../src/model/index.js';
import { MemorySourceStore, type SourceHead, type SourceStore } from '../../src/persistence/index.js';
import { ToolRegistry, replyTool, skipTool, type Tool } from '../../src/tools/index.js';
import { RecordingDelivery } from './conversation-harness.js';

export function createTestHost(options: {
  model: ModelPort;
  store?: SourceStore;
  delivery?: RecordingDelivery;
  tools?: readonly Tool[];
  host?: Partial<ActorHostOptions>;
  /** Where the host and its services log (nowhere when absent). */
  logger?: Logger;
}) {
  const logger = options.logger ?? silentLogger;
  const store = options.store ?? new MemorySourceStore();
  const delivery = options.delivery ?? new RecordingDelivery();
  const tools = new ToolRegistry().register(replyTool).register(skipTool);
  for (const tool of options.tools ?? []) tools.register(tool);
  const host = new ActorHost({
    store,
    services: {
      model: options.model,
      tools,
      delivery,
      systemInstruction: () => 'test',
      clock: { now: () => Date.now() },
      logger,
    },
    logger,
    clock: { now: () => Date.now() },
    backoff: { baseMs: 1, maxMs: 20 },
    ...options.host,
  });
  return { host, store, delivery, tools };
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

const everything = { maxEntries: 100_000, maxBytes: 100 * 1024 * 1024 };

/** Every history entry the store holds for a source, oldest first. */
export async function storedHistory(store: SourceStore, sourceId: string): Promise<HistoryEntry[]> {
  return (await store.load(sourceId, everything)).history.map((record) => record.entry);
}

/** The source's head as stored. */
export async function storedHead(store: SourceStore, sourceId: string): Promise<SourceHead | undefined> {
  return (await store.load(sourceId, { maxEntries: 0, maxBytes: 0 })).head;
}

/** The source is done: nothing waits in its inbox, no turn is under way, nobody owns it. */
export async function sourceAtRest(store: SourceStore, sourceId: string): Promise<boolean> {
  const head = await storedHead(store, sourceId);
  return (await store.inbox(sourceId)).length === 0 && head?.busy !== true && head?.owner === undefined;
}

export function userTexts(history: readonly HistoryEntry[]): string[] {
  return history.flatMap((entry) => (entry.role === 'user' ? [entry.text] : []));
}
