import { loadConfig } from '../../src/config/index.js';
import { signBody } from '../../src/line/emulator/webhook-sender.js';
import { silentLogger } from '../../src/logging/index.js';
import type { ModelPort } from '../../src/model/index.js';
import { MemorySourceStore, type SourceStore } from '../../src/persistence/index.js';
import { startKaiwa, type RuntimeOverrides } from '../../src/server/kaiwa-runtime.js';
import { startFakeLine } from './fake-line-server.js';

export const CHANNEL_SECRET = 'test-channel-secret';

/** kaiwa with a real channel configuration, talking to a fake LINE over HTTP. */
export async function startKaiwaWithFakeLine(options: {
  model: ModelPort;
  store?: SourceStore;
  overrides?: RuntimeOverrides;
  /** More configuration, by its environment names. */
  env?: Record<string, string>;
}) {
  const line = await startFakeLine();
  const config = loadConfig({
    PORT: '0',
    LINE_CHANNEL_SECRET: CHANNEL_SECRET,
    LINE_CHANNEL_ACCESS_TOKEN: line.emulator.channelAccessToken,
    LINE_API_BASE_URL: line.url,
    LINE_DATA_API_BASE_URL: line.url,
    STORE: 'memory',
    ...options.env,
  });
  const kaiwa = await startKaiwa(config, {
    model: options.model,
    store: options.store ?? new MemorySourceStore(),
    logger: silentLogger,
    ...options.overrides,
  });
  return {
    kaiwa,
    line,
    /** Posts a webhook body, signed like LINE signs it unless told otherwise. */
    post: (
      body: string,
      headers: Record<string, string> = { 'x-line-signature': signBody(body, CHANNEL_SECRET) },
    ) =>
      fetch(`${kaiwa.url}/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      }),
    close: async () => {
      await kaiwa.close();
      await line.close();
    },
  };
}

let sequence = 0;
/** A text message event as LINE sends it, with a reply token the fake LINE will accept. */
export function textEvent(
  line: { emulator: { issueReplyToken(chatId: string): string } },
  source:
    | { type: 'user'; userId: string }
    | { type: 'group'; groupId: string; userId: string }
    | { type: 'room'; roomId: string; userId: string },
  text: string,
) {
  sequence++;
  const chatId =
    source.type === 'user' ? source.userId : source.type === 'group' ? source.groupId : source.roomId;
  return {
    type: 'message',
    mode: 'active',
    timestamp: Date.now(),
    source,
    webhookEventId: `01HTESTEVENT${String(sequence).padStart(14, '0')}`,
    deliveryContext: { isRedelivery: false },
    replyToken: line.emulator.issueReplyToken(chatId),
    message: { type: 'text', id: String(100000 + sequence), quoteToken: `quote-${sequence}`, text },
  };
}
