import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatBundleFigures, lambdaBundlesSection, measureLambdaBundles } from './lambda-bundles.js';
import { existingPerformanceSection } from './performance-doc.js';
import { forkBench, nextMessage, stop } from './process-control.js';
import { measureContender, median, type ContenderRun, type ThroughputOptions } from './runtime-throughput.js';
import {
  measureToolSelection,
  reportToolSelection,
  toolSelectionSection,
  type ToolSelectionFigures,
} from './tool-selection.js';

// `npm run bench`: kaiwa against a bare express + @line/bot-sdk bot, end to end over HTTP.
// Writes the figures to docs/PERFORMANCE.md.

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const options: ThroughputOptions = {
  turns: numberFrom('BENCH_TURNS', 20_000),
  warmupTurns: numberFrom('BENCH_WARMUP_TURNS', 3_000),
  sources: numberFrom('BENCH_SOURCES', 1_000),
  concurrency: numberFrom('BENCH_CONCURRENCY', 64),
  rounds: numberFrom('BENCH_ROUNDS', 3),
};
const contenders = ['baseline', 'kaiwa'];

async function main() {
  // Every bench process, the Lambda bundles' included, runs on this Node.js.
  console.log(`kaiwa bench on Node.js ${process.version} (${process.execPath})`);
  process.env.LOG_LEVEL ??= 'warn'; // the same for every contender
  // Prompt tokens, not time: measured in this process, before the throughput runs start.
  const toolSelection = await measureToolSelection();
  reportToolSelection(toolSelection);
  const line = forkBench('fake-line-process.ts');
  const { url: lineUrl } = await nextMessage<{ url: string }>(line, 'ready');
  const runs: ContenderRun[] = [];
  try {
    for (let round = 1; round <= options.rounds; round++) {
      for (const contender of round % 2 ? contenders : [...contenders].reverse()) {
        const run = await measureContender(contender, lineUrl, options);
        runs.push(run);
        console.log(
          `round ${round} ${contender.padEnd(8)} ${run.turnsPerSecond.toFixed(0).padStart(6)} turns/s  ` +
            `${run.cpuMicrosPerTurn.toFixed(0).padStart(5)} µs CPU/turn  ${run.rssMiB.toFixed(0)} MiB RSS  failures ${run.failures}`,
        );
      }
    }
  } finally {
    await stop(line);
  }
  const summary = Object.fromEntries(
    contenders.map((contender) => {
      const mine = runs.filter((run) => run.contender === contender);
      return [
        contender,
        {
          turnsPerSecond: median(mine.map((run) => run.turnsPerSecond)),
          cpuMicrosPerTurn: median(mine.map((run) => run.cpuMicrosPerTurn)),
          rssMiB: median(mine.map((run) => run.rssMiB)),
        },
      ];
    }),
  ) as Record<string, { turnsPerSecond: number; cpuMicrosPerTurn: number; rssMiB: number }>;
  const kaiwa = summary.kaiwa!;
  const baseline = summary.baseline!;
  const cpuRatio = kaiwa.cpuMicrosPerTurn / baseline.cpuMicrosPerTurn;
  console.log(
    `\nmedian of ${options.rounds}: kaiwa ${kaiwa.turnsPerSecond.toFixed(0)} turns/s, baseline ${baseline.turnsPerSecond.toFixed(0)} turns/s; CPU per turn ratio ${cpuRatio.toFixed(2)}×`,
  );
  // The Lambda bundles: sizes and cold init on this Node.js (packaged offline first).
  const lambdaBundles = await measureLambdaBundles();
  console.log(`\n${formatBundleFigures(lambdaBundles)}`);
  await writeReport(summary, cpuRatio, toolSelection, lambdaBundlesSection(lambdaBundles));
}

async function writeReport(
  summary: Record<string, { turnsPerSecond: number; cpuMicrosPerTurn: number; rssMiB: number }>,
  cpuRatio: number,
  toolSelection: ToolSelectionFigures,
  lambdaBundles: string,
) {
  const rows = Object.entries(summary).map(
    ([contender, figures]) =>
      `| ${contender} | ${figures.turnsPerSecond.toFixed(0)} | ${figures.cpuMicrosPerTurn.toFixed(0)} | ${figures.rssMiB.toFixed(0)} |`,
  );
  const report = `# Performance

Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node.js ${process.version}).

## Runtime throughput: kaiwa against a bare bot

End to end over HTTP on loopback: signed webhooks in, replies out to a fake LINE. The load
generator and the fake LINE are separate processes; CPU is the bot process's own
\`process.cpuUsage()\`. The baseline is express + \`@line/bot-sdk\`'s middleware + the same
zero-latency model, with no actors and no persistence. kaiwa runs with the memory store (a JSON
round trip on every save and load), one actor per source, every step persisted.
${options.turns} measured turns after ${options.warmupTurns} warm-up turns, over ${options.sources} sources,
${options.concurrency} requests in flight, \`LOG_LEVEL=${process.env.LOG_LEVEL}\` for both; median of ${options.rounds} rounds.

| contender | turns/s | CPU µs per turn | RSS MiB |
|---|---|---|---|
${rows.join('\n')}

CPU per turn, kaiwa ÷ baseline: **${cpuRatio.toFixed(2)}×** (goal ≤ 1.10×). Goal ≥ 2,000 turns/s for kaiwa on 2 cores.

${toolSelectionSection(toolSelection)}

${lambdaBundles}

${await existingPerformanceSection('hostile-input')}
`;
  await writeFile(path.join(import.meta.dirname, '..', 'docs', 'PERFORMANCE.md'), report);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
