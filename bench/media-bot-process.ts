import { loadConfig } from '../src/config/index.js';
import { MemorySourceStore } from '../src/persistence/index.js';
import { startKaiwa } from '../src/server/kaiwa-runtime.js';
import { EchoReplyModel } from './bench-model.js';
import { BENCH_CHANNEL_SECRET } from './bench-bot.js';

// kaiwa for the hostile-media benchmark, in its own process: its LINE and content API are the
// parent's servers. The parent asks for this process's memory over IPC.
const config = loadConfig({
  PORT: '0',
  LINE_CHANNEL_SECRET: BENCH_CHANNEL_SECRET,
  LINE_CHANNEL_ACCESS_TOKEN: 'bench-token',
  LINE_API_BASE_URL: process.env.BENCH_LINE_URL!,
  LINE_DATA_API_BASE_URL: process.env.BENCH_CONTENT_URL!,
  STORE: 'memory',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'memory') {
    const usage = process.memoryUsage();
    // maxRSS is the kernel's high-water mark (KiB): the true peak, not a sample of it.
    process.send?.({
      type: 'memory',
      rss: usage.rss,
      maxRss: process.resourceUsage().maxRSS * 1024,
      live: usage.heapUsed + usage.external,
    });
  }
});
process.on('disconnect', () => process.exit(0));
startKaiwa(config, { model: new EchoReplyModel(), store: new MemorySourceStore() }).then(
  (runtime) => process.send?.({ type: 'ready', url: runtime.url }),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
