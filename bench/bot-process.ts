import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createStore } from '../src/composition/index.js';
import { loadConfig } from '../src/config/index.js';
import type { SourceStore } from '../src/persistence/index.js';
import { startKaiwa } from '../src/server/kaiwa-runtime.js';
import { startBaselineBot } from './baseline-bot.js';
import { EchoReplyModel } from './bench-model.js';
import { countWrites, type CountedStore, type StoreWriteCounts } from './counted-store.js';
import { startNaiveBot } from './naive-bot.js';
import { NaiveHistoryStore } from './naive-history-store.js';
import { trackWrittenBytes, type WrittenBytes } from './written-bytes.js';
import { BENCH_CHANNEL_SECRET } from './bench-bot.js';

// One contender, in its own process. The parent asks over IPC for this process's CPU time,
// memory, bytes written and store counters; the load generator and LINE are other processes.
const contender = process.argv[2];
const lineUrl = process.env.BENCH_LINE_URL!;
const dataDir = process.env.BENCH_DATA_DIR!;
const channelSecret = BENCH_CHANNEL_SECRET;
const channelAccessToken = 'bench-token';
const writtenBytes = trackWrittenBytes();

/** What the parent reads before and after each phase. */
export interface BotSample {
  readonly type: 'sample';
  readonly cpu: NodeJS.CpuUsage;
  readonly rss: number;
  readonly written: WrittenBytes;
  readonly store: StoreWriteCounts;
}

/** kaiwa's write methods: every call is one write (one transaction) of the store. */
const kaiwaWrites = [
  'accept',
  // SQLite only: accept and acquire in one transaction, counted as one write.
  'acceptAndAcquire',
  'countAttempt',
  'acquire',
  'renew',
  'release',
  'checkpoint',
  // SQLite: a turn's closing checkpoint, releasing the source when its inbox is then empty.
  'closeTurn',
  'forget',
  'saveProfile',
] as const satisfies readonly (keyof SourceStore)[];

let counted: CountedStore<object> | undefined;

async function start(): Promise<string> {
  const model = new EchoReplyModel();
  if (contender === 'baseline') {
    const server = await startBaselineBot({ channelSecret, channelAccessToken, lineUrl });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  if (contender === 'naive') {
    const store = countWrites(NaiveHistoryStore.open(path.join(dataDir, 'naive.db')), ['save']);
    counted = store;
    const server = await startNaiveBot({
      channelSecret,
      channelAccessToken,
      lineUrl,
      model,
      store: store.store,
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const config = loadConfig({
    PORT: '0',
    LINE_CHANNEL_SECRET: channelSecret,
    LINE_CHANNEL_ACCESS_TOKEN: channelAccessToken,
    LINE_API_BASE_URL: lineUrl,
    STORE: process.env.BENCH_KAIWA_STORE ?? 'sqlite',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // Off: the bench's users write faster than people do, and a limited turn makes no model call.
    KAIWA_MAX_MODEL_CALLS_PER_MINUTE: '0',
  });
  // The store the configuration selects, as `npm start` builds it, its writes counted.
  const created = await createStore(config);
  const store = countWrites(
    created,
    kaiwaWrites.filter((name) => typeof created[name] === 'function'),
  );
  counted = store;
  const runtime = await startKaiwa(config, { model, store: store.store });
  return runtime.url;
}

// `BENCH_CPU_PROFILE_DIR`: the V8 CPU profile of every phase between two samples, written as
// `<contender>-<n>.cpuprofile` (n = 1 after the first sample; the closed loop is the fifth).
const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
const profiler = profileDir ? new Session() : undefined;
let profiles = 0;
if (profiler) {
  profiler.connect();
  profiler.post('Profiler.enable');
}
function nextProfile() {
  if (!profiler) return;
  profiler.post('Profiler.stop', (error, result) => {
    if (!error && profiles > 0)
      writeFileSync(
        path.join(profileDir!, `${contender}-${profiles}.cpuprofile`),
        JSON.stringify(result.profile),
      );
    profiles++;
    profiler.post('Profiler.start');
  });
}

const noCounts: StoreWriteCounts = { writes: {}, logicalBytes: {} };

process.on('message', (message: { type: string; on?: boolean }) => {
  if (message.type === 'sample') {
    nextProfile();
    const sample: BotSample = {
      type: 'sample',
      cpu: process.cpuUsage(),
      rss: process.memoryUsage.rss(),
      written: writtenBytes(),
      store: counted?.counts() ?? noCounts,
    };
    process.send?.(sample);
  } else if (message.type === 'count-bytes') {
    counted?.countBytes(message.on === true);
    process.send?.({ type: 'count-bytes' });
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
