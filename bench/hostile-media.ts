import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { BENCH_BOT_USER_ID } from './bench-bot.js';
import { updatePerformanceSection } from './performance-doc.js';
import { forkBench, nextMessage, stop } from './process-control.js';

// `npm run bench:hostile`: 40 sources each send a 10 MB image at once; how much memory does the
// bot take at its peak, and how much does it keep after a minute of idling? The bot, the fake LINE
// and the content server (this process) are separate processes. Writes the "Hostile input"
// section of docs/PERFORMANCE.md.

const SOURCES = Number(process.env.BENCH_IMAGE_SOURCES ?? 40);
const IMAGE_BYTES = Number(process.env.BENCH_IMAGE_BYTES ?? 10 * 1024 * 1024);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 60_000);
const MiB = 1024 * 1024;

interface Memory {
  rss: number;
  maxRss: number;
  /** V8's heap in use plus memory outside it (Buffers, large strings): what the process still holds. */
  live: number;
}

/** A content API that serves the same JPEG-looking 10 MB body for every message. */
async function startContentServer() {
  const image = Buffer.alloc(IMAGE_BYTES, 0x00);
  image.set([0xff, 0xd8, 0xff, 0xe0]);
  let served = 0;
  const server = createServer((_request, response) => {
    served++;
    response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(image.length) });
    response.end(image);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served: () => served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function imageWebhook(index: number): { body: string; signature: string } {
  const body = JSON.stringify({
    // The bot the fake LINE speaks for: a webhook for another bot is refused (nothing stored).
    destination: BENCH_BOT_USER_ID,
    events: [
      {
        type: 'message',
        mode: 'active',
        timestamp: Date.now(),
        source: { type: 'user', userId: `U${index.toString(16).padStart(32, '0')}` },
        webhookEventId: `01HBENCHIMAGE${String(index).padStart(13, '0')}`,
        deliveryContext: { isRedelivery: false },
        replyToken: `reply-${index}`,
        message: {
          type: 'image',
          id: String(900000 + index),
          quoteToken: `q${index}`,
          contentProvider: { type: 'line' },
        },
      },
    ],
  });
  return { body, signature: createHmac('sha256', 'bench-secret').update(body).digest('base64') };
}

async function main() {
  process.env.LOG_LEVEL ??= 'warn';
  const content = await startContentServer();
  const line = forkBench('fake-line-process.ts');
  const { url: lineUrl } = await nextMessage<{ url: string }>(line, 'ready');
  const bot = forkBench('media-bot-process.ts', [], {
    BENCH_LINE_URL: lineUrl,
    BENCH_CONTENT_URL: content.url,
  });
  try {
    const { url: botUrl } = await nextMessage<{ url: string }>(bot, 'ready');
    const memory = async (): Promise<Memory> => {
      const answer = nextMessage<Memory>(bot, 'memory');
      bot.send({ type: 'memory' });
      return answer;
    };
    const replies = async () =>
      ((await (await fetch(`${lineUrl}/stats`)).json()) as { replies: number; pushes: number }).replies;
    const idle = await memory();
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: SOURCES }, async (_, index) => {
        const { body, signature } = imageWebhook(index);
        const response = await fetch(`${botUrl}/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-line-signature': signature },
          body,
        });
        return response.status;
      }),
    );
    if (statuses.some((status) => status !== 200)) throw new Error(`webhook answered ${statuses.join(', ')}`);
    // Bounded: a bot that answers 200 but stores nothing (a refused webhook) must fail the bench, not hang it.
    const deadline = Date.now() + 120_000;
    while ((await replies()) < SOURCES) {
      if (Date.now() > deadline) throw new Error(`${await replies()} of ${SOURCES} replies within 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const done = await memory();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const after = await memory();
    const figures = {
      idleMiB: idle.rss / MiB,
      peakMiB: done.maxRss / MiB,
      doneMiB: done.rss / MiB,
      afterIdleMiB: after.rss / MiB,
      liveAfterIdleMiB: after.live / MiB,
      seconds,
      downloads: content.served(),
    };
    console.log(figures);
    await updatePerformanceSection('hostile-input', hostileInputSection(figures));
  } finally {
    await stop(bot);
    await stop(line);
    await content.close();
  }
}

function hostileInputSection(figures: {
  idleMiB: number;
  peakMiB: number;
  doneMiB: number;
  afterIdleMiB: number;
  liveAfterIdleMiB: number;
  seconds: number;
  downloads: number;
}): string {
  const mib = (value: number) => `${value.toFixed(0)} MiB`;
  return `<!-- hostile-input -->
## Hostile input: 40 sources × 10 MB images

\`npm run bench:hostile\`, ${new Date().toISOString().slice(0, 10)} (${os.cpus().length} cores, Node.js ${process.version}).
${SOURCES} sources each send one ${(IMAGE_BYTES / MiB).toFixed(0)} MB image at the same moment (signed webhooks); the
content server (this benchmark's process) serves each at loopback speed, the fake LINE takes the
replies; the bot runs in its own process with the zero-latency benchmark model and the memory
store, default media settings (4 downloads at once, 10 MiB cap, a 32 MiB cache kept 2 min).
Peak is the kernel's high-water mark of the bot's RSS (\`process.resourceUsage().maxRSS\`);
"after idle" is its RSS ${(IDLE_MS / 1000).toFixed(0)} s after the last reply, and "live" what it still holds then
(V8's heap in use plus external memory: Buffers, large strings). RSS above "live" is memory the
allocator keeps for reuse rather than returning it to the system.

| | RSS at start | peak RSS | RSS after the last reply | RSS after ${(IDLE_MS / 1000).toFixed(0)} s idle | live after idle | wall time |
|---|---|---|---|---|---|---|
| before (issue 15's run: 32-entry cache of base64, no download limit) | — | 1,360 MiB | — | 1,230 MiB | — | — |
| before (commit 44420f3, this benchmark) | ${BEFORE.idle} | ${BEFORE.peak} | ${BEFORE.done} | ${BEFORE.afterIdle} | ${BEFORE.live} | ${BEFORE.seconds} |
| now | ${mib(figures.idleMiB)} | **${mib(figures.peakMiB)}** | ${mib(figures.doneMiB)} | **${mib(figures.afterIdleMiB)}** | ${mib(figures.liveAfterIdleMiB)} | ${figures.seconds.toFixed(1)} s |

The images a turn holds are bounded by the download slots (4 × 10 MiB in flight, then 13.3 MiB of
base64 each until the turn's model call is made) and the cache by its bytes; the cache's sweep
gives the memory back once its entries expire. A Gemini request copies each image once more into
its JSON body (not measured here: the benchmark model takes no images).
<!-- /hostile-input -->`;
}

/**
 * This benchmark run once (2026-11-23, same machine) against the code before the hardened download,
 * at commit 44420f3: kept as text, since that code is gone. Its 465 MiB live after idling is the
 * 32-entry cache holding 32 base64 images of 13.3 MiB.
 */
const BEFORE = {
  idle: '149 MiB',
  peak: '870 MiB',
  done: '820 MiB',
  afterIdle: '786 MiB',
  live: '465 MiB',
  seconds: '23.9 s',
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
