import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { composeConversations } from '../src/composition/index.js';
import { loadConfig } from '../src/config/index.js';
import { systemClock } from '../src/domain/index.js';
import { createLogger } from '../src/logging/index.js';
import { MemorySourceStore, openSqliteSourceStore } from '../src/persistence/index.js';
import { LocalReminderScheduler } from '../src/reminders/index.js';
import { messageFor, userSourceNumber } from '../test/support/host-harness.js';
import { EchoReplyModel } from './bench-model.js';
import { forkBench, nextMessage, stop } from './process-control.js';
import { BENCH_CHANNEL_SECRET } from './bench-bot.js';
import { fakeLineStats } from './fake-line-stats.js';

// kaiwa's CPU per turn as `npm start` composes it — the tool registry, step prompts with tool
// selection, the LINE delivery through the SDK and the transport over HTTP to the bench's fake
// LINE (its own process) — without the webhook: between `bench/host-turn-cpu.ts` (the actors
// and the store alone) and the runtime bench (everything, HTTP in too). docs/PERFORMANCE.md.
// `npx tsx bench/composed-turn-cpu.ts [sqlite|memory]`; `BENCH_CPU_PROFILE=file` writes the
// V8 profile of the measured rounds.

const storeName = process.argv[2] ?? 'sqlite';
const sources = Number(process.env.BENCH_SOURCES ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 60);
const warmupRounds = 10;

const line = forkBench('fake-line-process.ts');
const { url: lineUrl } = await nextMessage<{ url: string }>(line, 'ready');
const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-composed-cpu-'));
const config = loadConfig({
  PORT: '0',
  LINE_CHANNEL_SECRET: BENCH_CHANNEL_SECRET,
  LINE_CHANNEL_ACCESS_TOKEN: 'bench-token',
  LINE_API_BASE_URL: lineUrl,
  STORE: storeName,
  DATA_DIR: directory,
  LOG_LEVEL: 'warn',
  KAIWA_MAX_MODEL_CALLS_PER_MINUTE: '0',
});
const store =
  storeName === 'sqlite'
    ? await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db') })
    : new MemorySourceStore();
const logger = createLogger({ level: 'warn' });
const conversations = await composeConversations({
  config,
  store,
  model: new EchoReplyModel(),
  line: { channelAccessToken: 'bench-token', apiBaseUrl: lineUrl, dataApiBaseUrl: lineUrl },
  reminders: new LocalReminderScheduler({ deliver: () => Promise.resolve(), clock: systemClock, logger }),
  clock: systemClock,
  logger,
});
const host = conversations.createHost();

/** Every source gets its next message at once (a display name known: no profile lookup). */
async function round(turn: number) {
  await Promise.all(
    Array.from({ length: sources }, (_, index) => {
      const message = messageFor(userSourceNumber(index), `message ${turn}`);
      return host.accept([{ ...message, sender: { userId: message.source.id, displayName: 'bench' } }]);
    }),
  );
  await host.whenSettled();
}

for (let turn = 1; turn <= warmupRounds; turn++) await round(turn);
const profileFile = process.env.BENCH_CPU_PROFILE;
const profiler = profileFile ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
const before = process.cpuUsage();
for (let turn = warmupRounds + 1; turn <= warmupRounds + rounds; turn++) await round(turn);
const cpu = process.cpuUsage(before);
if (profiler && profileFile) {
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(profileFile, JSON.stringify(profile));
}
const turns = sources * rounds;
const stats = await fakeLineStats(lineUrl);
if (stats.replies !== sources * (warmupRounds + rounds) || stats.otherReplies !== 0) {
  throw new Error(`LINE got ${JSON.stringify(stats)} for ${sources * (warmupRounds + rounds)} turns`);
}
console.log(
  `${storeName}: ${((cpu.user + cpu.system) / turns).toFixed(0)} µs CPU per turn ` +
    `(user ${(cpu.user / turns).toFixed(0)}, system ${(cpu.system / turns).toFixed(0)}), ` +
    `${sources} sources × ${rounds} rounds after ${warmupRounds}, Node.js ${process.version}`,
);
await host.shutdown(1000);
await store.close();
await stop(line);
await rm(directory, { recursive: true, force: true });
