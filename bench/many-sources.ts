import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { defaults } from '../src/defaults/index.js';
import { signedMessageWebhook } from './bench-bot.js';
import { updatePerformanceSection } from './performance-doc.js';
import { ask, forkBench, nextMessage, stop } from './process-control.js';
import { fakeLineReplies } from './fake-line-stats.js';

// `npm run bench:sources`: 10,000 distinct sources each send one text through the real runtime
// (signed webhooks, SQLite, the fake LINE in its own process), once with the live-source cap
// (`KAIWA_MAX_LIVE_SOURCES`, default 1,000) and once without it. How much memory does the bot take
// at its peak, and how much does it keep after idling? Writes the "Many sources" section of
// docs/PERFORMANCE.md.

const SOURCES = Number(process.env.BENCH_SOURCES ?? 10_000);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 30_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const UNCAPPED = 1_000_000;
const MiB = 1024 * 1024;

interface Memory {
  rss: number;
  maxRss: number;
  heapUsed: number;
  live: number;
}

interface Figures {
  readonly label: string;
  readonly startRss: number;
  readonly peakRss: number;
  readonly peakHeap: number;
  readonly doneRss: number;
  readonly idleRss: number;
  readonly idleHeap: number;
  readonly seconds: number;
}

function textWebhook(index: number): { body: string; signature: string } {
  return signedMessageWebhook({
    userId: `U${index.toString(16).padStart(32, '0')}`,
    webhookEventId: `01HBENCHSOURCE${String(index).padStart(12, '0')}`,
    replyToken: `reply-${index}`,
    message: { type: 'text', id: String(700000 + index), quoteToken: `q${index}`, text: `hello ${index}` },
  });
}

/**
 * Posts one source's webhook; a connection the bot reset is sent again, as LINE redelivers (the
 * event id makes a second copy a duplicate).
 */
async function postWebhook(botUrl: string, index: number): Promise<void> {
  const { body, signature } = textWebhook(index);
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(`${botUrl}/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-line-signature': signature },
        body,
      });
      if (response.status === 200) return;
      throw new Error(`webhook answered ${response.status}: ${await response.text()}`);
    } catch (error) {
      if (attempt >= 5) throw error;
      console.warn(`webhook ${index}, attempt ${attempt}: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

async function run(lineUrl: string, maxLiveSources: number, label: string): Promise<Figures> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kaiwa-bench-sources-'));
  const bot = forkBench('sources-bot-process.ts', [], {
    BENCH_LINE_URL: lineUrl,
    BENCH_DATA_DIR: dataDir,
    KAIWA_MAX_LIVE_SOURCES: String(maxLiveSources),
  });
  let sampler: NodeJS.Timeout | undefined;
  try {
    const { url: botUrl } = await nextMessage<{ url: string }>(bot, 'ready');
    const memory = () => ask<Memory>(bot, 'memory');
    const replies = () => fakeLineReplies(lineUrl);
    const repliesBefore = await replies();
    const start = await memory();
    let peakHeap = start.heapUsed;
    let sampling = false;
    sampler = setInterval(() => {
      // One sample at a time: a busy bot answers late, and the samples must not pile up.
      if (sampling) return;
      sampling = true;
      memory()
        .then(
          (sample) => (peakHeap = Math.max(peakHeap, sample.heapUsed)),
          () => {},
        )
        .finally(() => (sampling = false));
    }, 250);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < SOURCES) {
          const index = next++;
          await postWebhook(botUrl, index);
          if ((index + 1) % 1000 === 0) console.log(`${label}: ${index + 1} webhooks accepted`);
        }
      }),
    );
    while ((await replies()) - repliesBefore < SOURCES)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const seconds = (performance.now() - started) / 1000;
    const done = await memory();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    clearInterval(sampler);
    const idle = await memory();
    const figures = {
      label,
      startRss: start.rss / MiB,
      peakRss: idle.maxRss / MiB,
      peakHeap: Math.max(peakHeap, done.heapUsed, idle.heapUsed) / MiB,
      doneRss: done.rss / MiB,
      idleRss: idle.rss / MiB,
      idleHeap: idle.heapUsed / MiB,
      seconds,
    };
    console.log(figures);
    return figures;
  } finally {
    clearInterval(sampler);
    await stop(bot);
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  process.env.LOG_LEVEL ??= 'warn';
  const line = forkBench('fake-line-process.ts');
  try {
    const { url: lineUrl } = await nextMessage<{ url: string }>(line, 'ready');
    const capped = await run(
      lineUrl,
      defaults.host.maxLiveSources,
      `cap on (\`KAIWA_MAX_LIVE_SOURCES\`=${defaults.host.maxLiveSources.toLocaleString('en')}, the default)`,
    );
    const uncapped = await run(lineUrl, UNCAPPED, 'cap off (`KAIWA_MAX_LIVE_SOURCES`=1,000,000)');
    await updatePerformanceSection('many-sources', manySourcesSection([capped, uncapped]));
  } finally {
    await stop(line);
  }
}

function manySourcesSection(runs: readonly Figures[]): string {
  const mib = (value: number) => `${value.toFixed(0)} MiB`;
  const idle = (IDLE_MS / 1000).toFixed(0);
  const rows = runs
    .map(
      (figures) =>
        `| ${figures.label} | ${mib(figures.startRss)} | **${mib(figures.peakRss)}** | ${mib(figures.peakHeap)} | ${mib(figures.doneRss)} | **${mib(figures.idleRss)}** | ${mib(figures.idleHeap)} | ${figures.seconds.toFixed(1)} s |`,
    )
    .join('\n');
  return `<!-- many-sources -->
## Many sources: 10,000 chats, with and without the live-source cap

\`npm run bench:sources\`, ${new Date().toISOString().slice(0, 10)} (${os.cpus().length} cores, Node.js ${process.version}).
${SOURCES.toLocaleString('en')} distinct sources each send one text (signed webhooks, ${CONCURRENCY} at a time) to the bot in
its own process, as \`npm start\` runs it: SQLite in a fresh data directory, the zero-latency benchmark
model, the fake LINE in another process; each is answered before the run ends. Peak RSS is the
kernel's high-water mark (\`process.resourceUsage().maxRSS\`); peak heap is V8's heap in use,
sampled every 250 ms; "after idle" is ${idle} s after the last reply, well inside
\`KAIWA_IDLE_EVICTION_MS\` (${(defaults.host.idleEvictionMs / 60_000).toFixed(0)} min), so without the cap every source is still in memory then.
The wall time includes the webhooks' HTTP round trips on a shared two-core machine: it is not a
throughput figure (the runtime section above has those).

| | RSS at start | peak RSS | peak heap | RSS after the last reply | RSS after ${idle} s idle | heap after ${idle} s idle | wall time |
|---|---|---|---|---|---|---|---|
${rows}

${comparison(runs)}
<!-- /many-sources -->`;
}

/** What the live sources beyond the cap hold: the heaps after idling, capped against uncapped. */
function comparison([capped, uncapped]: readonly Figures[]): string {
  if (!capped || !uncapped) return '';
  const held = uncapped.idleHeap - capped.idleHeap;
  const more = SOURCES - defaults.host.maxLiveSources;
  return `With the cap, ${defaults.host.maxLiveSources.toLocaleString('en')} sources stay live and the heap after idling is ${capped.idleHeap.toFixed(0)} MiB; without it all
${SOURCES.toLocaleString('en')} stay until the idle eviction and it is ${uncapped.idleHeap.toFixed(0)} MiB: the ${more.toLocaleString('en')} more live sources hold about
${held.toFixed(0)} MiB, some ${((held * 1024) / more).toFixed(0)} KB each. RSS does not fall with the heap after idling (${capped.idleRss.toFixed(0)} MiB with the cap):
V8 and the allocator keep freed pages for reuse.`;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
