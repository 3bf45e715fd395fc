import { createStore } from '../src/composition/index.js';
import { loadConfig } from '../src/config/index.js';
import { startKaiwa } from '../src/server/kaiwa-runtime.js';
import { EchoReplyModel } from './bench-model.js';
import { BENCH_CHANNEL_SECRET } from './bench-bot.js';

// kaiwa for the many-sources benchmark, in its own process, as `npm start` runs it: SQLite in a
// fresh data directory, the live-source cap from `KAIWA_MAX_LIVE_SOURCES`. Its LINE is the
// parent's fake LINE. The parent asks for this process's memory over IPC.
const config = loadConfig({
  PORT: '0',
  LINE_CHANNEL_SECRET: BENCH_CHANNEL_SECRET,
  LINE_CHANNEL_ACCESS_TOKEN: 'bench-token',
  LINE_API_BASE_URL: process.env.BENCH_LINE_URL!,
  STORE: 'sqlite',
  DATA_DIR: process.env.BENCH_DATA_DIR!,
  KAIWA_MAX_LIVE_SOURCES: process.env.KAIWA_MAX_LIVE_SOURCES ?? '',
  KAIWA_MAX_MODEL_CALLS_PER_MINUTE: '0',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'memory') {
    const usage = process.memoryUsage();
    process.send?.({
      type: 'memory',
      rss: usage.rss,
      // The kernel's high-water mark (KiB): the true peak, not a sample of it.
      maxRss: process.resourceUsage().maxRSS * 1024,
      heapUsed: usage.heapUsed,
      live: usage.heapUsed + usage.external,
    });
  }
});
process.on('disconnect', () => process.exit(0));
createStore(config)
  .then((store) => startKaiwa(config, { model: new EchoReplyModel(), store }))
  .then(
    (runtime) => process.send?.({ type: 'ready', url: runtime.url }),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
