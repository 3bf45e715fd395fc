import os from 'node:os';
import {
  WARMUP_ROUNDS,
  type ContenderRun,
  type Figures,
  type ThroughputOptions,
} from './runtime-throughput.js';
import type { RuntimeSummary, TargetResult } from './runtime-targets.js';

const integer = (value: number) => Math.round(value).toLocaleString('en-US');
const bytes = (value: number) =>
  value >= 10_000 ? `${(value / 1024).toFixed(1)} KB` : `${Math.round(value).toLocaleString('en-US')} B`;
const milliseconds = (value: number) => `${value.toFixed(1)} ms`;
const writes = (value: number) => value.toFixed(2).replace(/\.?0+$/, '');
const byMethod = (perTurn: Readonly<Record<string, number>>) =>
  Object.entries(perTurn)
    .map(([method, count]) => `${method} ${writes(count)}`)
    .join(', ') || 'none';

/** One run's line on the console. */
export function formatRun(round: number, run: ContenderRun): string {
  const f = run.figures;
  return (
    `round ${round} ${run.contender.padEnd(8)} ${integer(f.turnsPerSecond).padStart(6)} turns/s  ` +
    `${integer(f.cpuMicrosPerTurn).padStart(5)} µs CPU/turn  ack p99 ${milliseconds(f.ackP99Ms)} closed, ` +
    `${milliseconds(f.openLoopAckP99Ms)} at ${integer(f.openLoopTurnsPerSecond)}/s  ${integer(f.rssMiB)} MiB  ` +
    `writes/turn ${writes(f.freshWrites)} → ${writes(f.longWrites)} (${byMethod(run.longWritesByMethod)})  ` +
    `logical ${bytes(f.freshLogicalBytes)} → ${bytes(f.longLogicalBytes)}  ` +
    `physical ${bytes(f.freshPhysicalBytes)} → ${bytes(f.longPhysicalBytes)}  failures ${f.failures}, other replies ${f.otherReplies}`
  );
}

/** The targets on the console: one line each, PASS or FAIL. */
export function formatTargets(targets: readonly TargetResult[]): string {
  return targets
    .map(
      (target) =>
        `${target.pass ? 'PASS' : 'FAIL'}  ${target.name}: ${target.measured} (goal ${target.goal})`,
    )
    .join('\n');
}

export interface RuntimeReport {
  readonly options: ThroughputOptions;
  readonly summary: RuntimeSummary;
  readonly targets: readonly TargetResult[];
  /** Writes per turn by method, from one run of each contender (they do not vary by run). */
  readonly writesByMethod: Readonly<
    Record<keyof RuntimeSummary, Pick<ContenderRun, 'freshWritesByMethod' | 'longWritesByMethod'>>
  >;
  /** What kaiwa ran on, as the section states it (e.g. "the SQLite store, `STORE=sqlite`"). */
  readonly kaiwaStore: string;
  readonly logLevel: string;
}

/** The section of docs/PERFORMANCE.md that `npm run bench` writes for the runtime. */
export function runtimeThroughputSection(report: RuntimeReport): string {
  const { options, summary, targets } = report;
  const turn = options.conversationTurns;
  const contenders: [keyof RuntimeSummary, string][] = [
    ['kaiwa', `kaiwa (${report.kaiwaStore})`],
    ['naive', 'naive bot (SQLite, one row per source)'],
    ['baseline', 'bare baseline (no persistence)'],
  ];
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const speed = contenders.map(([key, label]) => {
    const f: Figures = summary[key];
    return row([
      label,
      integer(f.turnsPerSecond),
      integer(f.cpuMicrosPerTurn),
      `${milliseconds(f.ackP50Ms)} / ${milliseconds(f.ackP99Ms)}`,
      `${integer(f.openLoopTurnsPerSecond)}/s: ${milliseconds(f.openLoopAckP50Ms)} / ${milliseconds(f.openLoopAckP99Ms)}`,
      integer(f.rssMiB),
    ]);
  });
  const written = contenders.map(([key, label]) => {
    const f: Figures = summary[key];
    return row([
      label,
      `${writes(f.freshWrites)} / ${writes(f.longWrites)}`,
      `${bytes(f.freshLogicalBytes)} / ${bytes(f.longLogicalBytes)}`,
      `${bytes(f.freshPhysicalBytes)} / ${bytes(f.longPhysicalBytes)}`,
    ]);
  });
  const methods = contenders
    .filter(([key]) => summary[key].longWrites > 0)
    .map(
      ([key, label]) =>
        `${label}: turn 1 ${byMethod(report.writesByMethod[key].freshWritesByMethod)}; turn ${turn + 1} ${byMethod(report.writesByMethod[key].longWritesByMethod)}`,
    );
  const cpu = os.cpus();
  return `<!-- runtime-throughput -->
## Runtime: kaiwa against a naive bot and a bare bot

Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${cpu.length} cores, ${cpu[0]?.model ?? 'unknown CPU'}, Node.js ${process.version}).

**Contenders.** All three are driven the same way, end to end over HTTP on loopback: signed
webhooks in, replies out to a fake LINE, with the same zero-latency model (\`bench/bench-model.ts\`:
one \`reply\` call per turn). The load generator and the fake LINE are processes of their own.
- **kaiwa** runs as \`npm start\` builds it (\`src/server/kaiwa-runtime.ts\`) on ${report.kaiwaStore}: one
  actor per source, the message accepted into the inbox before the webhook answers, every step
  persisted.
- **The naive bot** (\`bench/naive-bot.ts\`) is written the way most LINE bots are: express +
  \`@line/bot-sdk\`'s middleware, the webhook answered at once, then one model call per turn over
  the stored history and one reply. It keeps the whole history as one JSON row per source in SQLite
  (\`node:sqlite\`, WAL, \`synchronous = NORMAL\` like kaiwa's store; the default page size), read
  whole and rewritten whole on every turn (\`bench/naive-history-store.ts\`); two entries per turn
  (the message and the answer as text). No inbox, no redelivery check, no ownership.
- **The bare baseline** (\`bench/baseline-bot.ts\`): the same without any history or persistence.

**Load.** ${integer(options.sources)} conversations (LINE user sources) per run, in rounds: each round gives every
source its next message, ${options.concurrency} requests in flight, and waits for every reply before the next
round, so a conversation's turns never overlap and "turn t" has t − 1 turns before it. Turn 1
(fresh conversations) and turn ${turn + 1} (after ${turn} turns) are the byte rounds; then
${options.measuredRounds} rounds (${integer(options.sources * options.measuredRounds)} turns, conversations of ${turn + 2}+ turns) give
turns/s — the maximum rate, the closed loop's — CPU per turn and the ack latency of a saturated
bot; then an **open loop at ${Math.round(options.openLoopShare * 100)} % of that rate** for ${options.openLoopSeconds} s gives the ack latency
at that load, each ack timed from the moment its request was due (a bot falling behind shows).
Every run is a fresh bot process on a fresh data directory, first warmed up on as many other
conversations (${WARMUP_ROUNDS} turns each); ${options.rounds === 1 ? 'one run of each contender' : `${options.rounds} runs of each contender, interleaved; the tables show medians`}. \`LOG_LEVEL=${report.logLevel}\` for all.

**Measures.** CPU: the bot process's own \`process.cpuUsage()\` (user + system). RSS: after the
closed loop. Store writes: calls of the store's write methods, counted by a wrapper around the
store (\`bench/counted-store.ts\`; kaiwa's store is the one \`createStore\` builds). Logical bytes: the
UTF-8 bytes of those calls' arguments as JSON — what the store was asked to write (counted in the
byte rounds only, as serialising costs CPU). Physical bytes: what the bot process handed to
write(2) (\`wchar\` of \`/proc/self/io\`) minus what it wrote to TCP sockets (counted per socket
through Node.js's \`net\` diagnostics channels), i.e. WAL frames, checkpoints into the database
file and any other file writes; the baseline's figure shows what is left over (IPC, libuv wake-ups).

| contender | turns/s | CPU µs per turn | ack p50 / p99, closed loop | ack p50 / p99, open loop at ${Math.round(options.openLoopShare * 100)} % | RSS MiB |
|---|---|---|---|---|---|
${speed.join('\n')}

| contender | store writes per turn, turn 1 / ${turn + 1} | logical bytes per turn, turn 1 / ${turn + 1} | physical bytes per turn, turn 1 / ${turn + 1} |
|---|---|---|---|
${written.join('\n')}

Store writes by method, per turn: ${methods.join('. ') || 'none'}.

Webhooks not answered 200, and replies other than the model's answer (a limit notice, an
apology; the fake LINE checks every reply): ${contenders.map(([key]) => `${key} ${summary[key].failures} and ${summary[key].otherReplies}`).join(', ')}.
kaiwa's per-minute model-call limit is off (\`KAIWA_MAX_MODEL_CALLS_PER_MINUTE=0\`): the load's
users write faster than people do, and a limited turn would skip its model call.

**Targets** (SPEC.md, "Benchmark targets, measurable"; turns/s is reported, not targeted):

${targets.map((target) => `- ${target.pass ? '**PASS**' : '**FAIL**'} ${target.name}: ${target.measured} (goal ${target.goal})`).join('\n')}
<!-- /runtime-throughput -->`;
}
