import { formatBundleFigures, lambdaBundlesSection, measureLambdaBundles } from './lambda-bundles.js';
import { updatePerformanceSection } from './performance-doc.js';
import { forkBench, nextMessage, stop } from './process-control.js';
import { formatRun, formatTargets, runtimeThroughputSection } from './runtime-report.js';
import { runtimeTargets, type RuntimeSummary } from './runtime-targets.js';
import {
  measureContender,
  medianFigures,
  type ContenderRun,
  type ThroughputOptions,
} from './runtime-throughput.js';
import { measureToolSelection, reportToolSelection, toolSelectionSection } from './tool-selection.js';

// `npm run bench`: kaiwa against a naive bot and a bare bot, end to end over HTTP; then the
// tool-selection prompt tokens and the Lambda bundles. Each writes its section of
// docs/PERFORMANCE.md. `BENCH_QUICK=1`: smaller runtime runs (about 2–3 minutes in all);
// `BENCH_ONLY=runtime`: the runtime figures alone; `BENCH_ONLY=lambda`: the Lambda bundles alone.
// Every size can be set: BENCH_SOURCES,
// BENCH_CONVERSATION_TURNS, BENCH_MEASURED_ROUNDS, BENCH_CONCURRENCY, BENCH_OPEN_LOOP_SECONDS,
// BENCH_ROUNDS. BENCH_KAIWA_STORE: the store kaiwa runs on (its `STORE`).

const quick = process.env.BENCH_QUICK === '1';
const numberFrom = (name: string, full: number, short: number) => {
  const value = Number(process.env[name] ?? (quick ? short : full));
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
};
const options: ThroughputOptions = {
  sources: numberFrom('BENCH_SOURCES', 400, 100),
  conversationTurns: numberFrom('BENCH_CONVERSATION_TURNS', 40, 40),
  // Few rounds, many conversations: the CPU figure stays at conversations of 40 turns or so.
  measuredRounds: numberFrom('BENCH_MEASURED_ROUNDS', 10, 10),
  concurrency: numberFrom('BENCH_CONCURRENCY', 64, 64),
  openLoopShare: 0.7,
  openLoopSeconds: numberFrom('BENCH_OPEN_LOOP_SECONDS', 15, 5),
  rounds: numberFrom('BENCH_ROUNDS', 3, 1),
};
const kaiwaStore = process.env.BENCH_KAIWA_STORE ?? 'sqlite';
const kaiwaStoreNames: Record<string, string> = {
  sqlite: 'its embedded SQLite store, `STORE=sqlite`',
  memory: 'the memory store, `STORE=memory`',
};
const contenders = ['baseline', 'naive', 'kaiwa'] as const;

async function main() {
  // Every bench process, the Lambda bundles' included, runs on this Node.js.
  console.log(`kaiwa bench on Node.js ${process.version} (${process.execPath})`);
  process.env.LOG_LEVEL ??= 'warn'; // the same for every contender
  const only = process.env.BENCH_ONLY;
  if (only !== 'lambda') await runtime();
  if (only === 'runtime') return;
  if (only !== 'lambda') {
    // Prompt tokens, not time.
    const toolSelection = await measureToolSelection();
    reportToolSelection(toolSelection);
    await updatePerformanceSection('tool-selection', toolSelectionSection(toolSelection));
  }
  // The Lambda bundles: sizes and cold init on this Node.js (packaged offline first).
  const lambdaBundles = await measureLambdaBundles();
  console.log(`\n${formatBundleFigures(lambdaBundles)}`);
  await updatePerformanceSection('lambda-bundles', lambdaBundlesSection(lambdaBundles));
}

async function runtime() {
  console.log(`runtime: ${JSON.stringify(options)}, kaiwa on STORE=${kaiwaStore}`);
  const line = forkBench('fake-line-process.ts');
  const { url: lineUrl } = await nextMessage<{ url: string }>(line, 'ready');
  const runs: ContenderRun[] = [];
  try {
    for (let round = 1; round <= options.rounds; round++) {
      for (const contender of round % 2 ? contenders : [...contenders].reverse()) {
        const run = await measureContender(contender, lineUrl, options, { BENCH_KAIWA_STORE: kaiwaStore });
        runs.push(run);
        console.log(formatRun(round, run));
      }
    }
  } finally {
    await stop(line);
  }
  const runsOf = (contender: (typeof contenders)[number]) =>
    runs.filter((run) => run.contender === contender);
  const summary: RuntimeSummary = {
    kaiwa: medianFigures(runsOf('kaiwa')),
    naive: medianFigures(runsOf('naive')),
    baseline: medianFigures(runsOf('baseline')),
  };
  const targets = runtimeTargets(summary);
  console.log(`\nmedians of ${options.rounds} run(s):\n${formatTargets(targets)}\n`);
  await updatePerformanceSection(
    'runtime-throughput',
    runtimeThroughputSection({
      options,
      summary,
      targets,
      writesByMethod: {
        kaiwa: runsOf('kaiwa')[0]!,
        naive: runsOf('naive')[0]!,
        baseline: runsOf('baseline')[0]!,
      },
      kaiwaStore: kaiwaStoreNames[kaiwaStore] ?? `\`STORE=${kaiwaStore}\``,
      logLevel: process.env.LOG_LEVEL ?? 'warn',
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
