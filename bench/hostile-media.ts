import os from 'node:os';
import { measureHostileMedia, type HostileMediaFigures } from './hostile-media-measure.js';
import { updatePerformanceSection } from './performance-doc.js';

// `npm run bench:hostile`: 40 sources each send a 10 MB image at once; how much memory does the
// bot take at its peak, and how much does it keep after a minute of idling? The measurement is
// `hostile-media-measure.ts`; this writes the "Hostile input" section of docs/PERFORMANCE.md.

const SOURCES = Number(process.env.BENCH_IMAGE_SOURCES ?? 40);
const IMAGE_BYTES = Number(process.env.BENCH_IMAGE_BYTES ?? 10 * 1024 * 1024);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 60_000);
const MiB = 1024 * 1024;

async function main() {
  process.env.LOG_LEVEL ??= 'warn';
  const figures = await measureHostileMedia({ sources: SOURCES, imageBytes: IMAGE_BYTES, idleMs: IDLE_MS });
  console.log(figures);
  await updatePerformanceSection('hostile-input', hostileInputSection(figures));
}

function hostileInputSection(figures: HostileMediaFigures): string {
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
