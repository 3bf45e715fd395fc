import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config/index.js';
import { MemorySourceStore } from '../src/persistence/index.js';
import { startKaiwa } from '../src/server/kaiwa-runtime.js';
import { startBaselineBot } from './baseline-bot.js';
import { EchoReplyModel } from './bench-model.js';

// One contender, in its own process. The parent asks for this process's CPU time over IPC.
const contender = process.argv[2];
const lineUrl = process.env.BENCH_LINE_URL!;
const channelSecret = 'bench-secret';
const channelAccessToken = 'bench-token';

async function start(): Promise<string> {
  if (contender === 'baseline') {
    const server = await startBaselineBot({ channelSecret, channelAccessToken, lineUrl });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const config = loadConfig({
    PORT: '0',
    LINE_CHANNEL_SECRET: channelSecret,
    LINE_CHANNEL_ACCESS_TOKEN: channelAccessToken,
    LINE_API_BASE_URL: lineUrl,
    STORE: 'memory',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  });
  const runtime = await startKaiwa(config, { model: new EchoReplyModel(), store: new MemorySourceStore() });
  return runtime.url;
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'cpu') {
    process.send?.({ type: 'cpu', usage: process.cpuUsage(), memory: process.memoryUsage() });
  }
});
process.on('disconnect', () => process.exit(0));
start().then(
  (url) => process.send?.({ type: 'ready', url }),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
