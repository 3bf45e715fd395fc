import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BotSample } from './bot-process.js';
import type { Load, LoadResult } from './load-process.js';
import { forkBench, nextMessage, stop } from './process-control.js';

/** How much load one contender's run takes (`bench/run.ts` reads them from `BENCH_*`). */
export interface ThroughputOptions {
  /** Conversations (LINE user sources) per run. */
  readonly sources: number;
  /** Turns every conversation has before the long-conversation figures are measured (40). */
  readonly conversationTurns: number;
  /** Closed-loop rounds (one turn per source each) measured for turns/s, CPU and acks. */
  readonly measuredRounds: number;
  /** Requests in flight in the closed loop. */
  readonly concurrency: number;
  /** The open loop's rate as a share of the closed loop's turns/s (0.7). */
  readonly openLoopShare: number;
  readonly openLoopSeconds: number;
  /** Runs of each contender, interleaved; the report takes medians. */
  readonly rounds: number;
}

/** Every figure of one run; all of them numbers, so the medians of rounds are per figure. */
export const FIGURE_NAMES = [
  /** Closed loop at `conversationTurns` + 2…: turns answered per second (the maximum rate). */
  'turnsPerSecond',
  /** The bot process's CPU (user + system) per turn, closed loop, long conversations. */
  'cpuMicrosPerTurn',
  /** Webhook ack latency in the closed loop (saturated). */
  'ackP50Ms',
  'ackP99Ms',
  /** The open loop's rate: `openLoopShare` × `turnsPerSecond`. */
  'openLoopTurnsPerSecond',
  /** Webhook ack latency at that rate, from the moment each request was due. */
  'openLoopAckP50Ms',
  'openLoopAckP99Ms',
  /** Resident memory after the closed loop. */
  'rssMiB',
  /** Turn 1 of every source: store writes, logical and physical bytes per turn. */
  'freshWrites',
  'freshLogicalBytes',
  'freshPhysicalBytes',
  /** Turn `conversationTurns` + 1 of every source: the same. */
  'longWrites',
  'longLogicalBytes',
  'longPhysicalBytes',
  /** Webhook requests not answered 200, over the whole run. */
  'failures',
  /** Replies other than the model's answer (a limit notice, an apology), over the whole run. */
  'otherReplies',
] as const;

export type FigureName = (typeof FIGURE_NAMES)[number];
export type Figures = Readonly<Record<FigureName, number>>;

export interface ContenderRun {
  readonly contender: string;
  readonly figures: Figures;
  /** Store writes per turn by method, for turn 1 and for turn `conversationTurns` + 1. */
  readonly freshWritesByMethod: Readonly<Record<string, number>>;
  readonly longWritesByMethod: Readonly<Record<string, number>>;
}

/** Rounds over other conversations before the measured ones start. */
export const WARMUP_ROUNDS = 5;

interface PhaseFigures {
  readonly writes: number;
  readonly writesByMethod: Record<string, number>;
  readonly logicalBytes: number;
  readonly physicalBytes: number;
}

/**
 * One contender, one run: a fresh bot process on a fresh data directory, warmed up on other
 * conversations (`WARMUP_ROUNDS` turns each). Every source's turn 1
 * is measured for bytes and writes (a fresh conversation); the conversations are then played
 * to `conversationTurns` turns and turn `conversationTurns` + 1 is measured the same way; then
 * `measuredRounds` closed-loop rounds give turns/s, CPU per turn and acks; then an open loop at
 * `openLoopShare` of that rate gives the acks at that load. Bytes are counted only in the two
 * byte rounds (serialising costs CPU). CPU is the bot process's own `process.cpuUsage()`.
 */
export async function measureContender(
  contender: string,
  lineUrl: string,
  options: ThroughputOptions,
  env: Record<string, string> = {},
): Promise<ContenderRun> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `kaiwa-bench-${contender}-`));
  const bot = forkBench('bot-process.ts', [contender], {
    ...env,
    BENCH_LINE_URL: lineUrl,
    BENCH_DATA_DIR: dataDir,
  });
  const load = forkBench('load-process.ts');
  try {
    const { url } = await nextMessage<{ url: string }>(bot, 'ready');
    const base = { botUrl: url, lineUrl, sources: options.sources, firstSource: 0, label: contender };
    const runLoad = (spec: Load) => {
      load.send({ type: 'run', load: spec });
      return nextMessage<LoadResult>(load, 'done');
    };
    const rounds = (firstTurn: number, count: number) =>
      runLoad({ ...base, kind: 'rounds', firstTurn, rounds: count, concurrency: options.concurrency });
    const sample = () => {
      bot.send({ type: 'sample' });
      return nextMessage<BotSample>(bot, 'sample');
    };
    const countBytes = async (on: boolean) => {
      bot.send({ type: 'count-bytes', on });
      await nextMessage(bot, 'count-bytes');
    };
    const byteRound = async (turn: number) => {
      await countBytes(true);
      const before = await sample();
      const result = await rounds(turn, 1);
      const after = await sample();
      await countBytes(false);
      return { result, phase: phaseFigures(before, after, options.sources) };
    };

    // Other conversations first, so that turn 1 of the measured ones runs on warm code.
    const warmup = await runLoad({
      ...base,
      firstSource: options.sources,
      kind: 'rounds',
      firstTurn: 1,
      rounds: WARMUP_ROUNDS,
      concurrency: options.concurrency,
    });
    const fresh = await byteRound(1);
    const played = await rounds(2, options.conversationTurns - 1);
    const long = await byteRound(options.conversationTurns + 1);
    const firstMeasured = options.conversationTurns + 2;
    const before = await sample();
    const closed = await rounds(firstMeasured, options.measuredRounds);
    const after = await sample();
    const measuredTurns = options.sources * options.measuredRounds;
    const turnsPerSecond = measuredTurns / (closed.elapsedMs / 1000);
    const openLoopTurnsPerSecond = turnsPerSecond * options.openLoopShare;
    const open = await runLoad({
      ...base,
      kind: 'open-loop',
      firstTurn: firstMeasured + options.measuredRounds,
      turnsPerSecond: openLoopTurnsPerSecond,
      turns: Math.max(1, Math.round(openLoopTurnsPerSecond * options.openLoopSeconds)),
    });
    const loads = [warmup, fresh.result, played, long.result, closed, open];
    return {
      contender,
      figures: {
        turnsPerSecond,
        cpuMicrosPerTurn: cpuMicros(before, after) / measuredTurns,
        ackP50Ms: closed.ackP50Ms,
        ackP99Ms: closed.ackP99Ms,
        openLoopTurnsPerSecond,
        openLoopAckP50Ms: open.ackP50Ms,
        openLoopAckP99Ms: open.ackP99Ms,
        rssMiB: after.rss / 1024 / 1024,
        freshWrites: fresh.phase.writes,
        freshLogicalBytes: fresh.phase.logicalBytes,
        freshPhysicalBytes: fresh.phase.physicalBytes,
        longWrites: long.phase.writes,
        longLogicalBytes: long.phase.logicalBytes,
        longPhysicalBytes: long.phase.physicalBytes,
        failures: sum(loads.map((result) => result.failures)),
        otherReplies: sum(loads.map((result) => result.otherReplies)),
      },
      freshWritesByMethod: fresh.phase.writesByMethod,
      longWritesByMethod: long.phase.writesByMethod,
    };
  } finally {
    await Promise.all([stop(bot), stop(load)]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Per-turn figures between two samples of the bot process. */
function phaseFigures(before: BotSample, after: BotSample, turns: number): PhaseFigures {
  const delta = (from: Record<string, number>, to: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(to).map(([name, value]) => [name, (value - (from[name] ?? 0)) / turns]),
    );
  const writesByMethod = delta(before.store.writes, after.store.writes);
  const files = (sample: BotSample) => sample.written.total - sample.written.sockets;
  return {
    writes: sum(Object.values(writesByMethod)),
    writesByMethod: Object.fromEntries(Object.entries(writesByMethod).filter(([, perTurn]) => perTurn > 0)),
    logicalBytes: sum(Object.values(delta(before.store.logicalBytes, after.store.logicalBytes))),
    physicalBytes: (files(after) - files(before)) / turns,
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function cpuMicros(before: BotSample, after: BotSample): number {
  return after.cpu.user - before.cpu.user + (after.cpu.system - before.cpu.system);
}

/** The median of each figure over a contender's runs. */
export function medianFigures(runs: readonly ContenderRun[]): Figures {
  return Object.fromEntries(
    FIGURE_NAMES.map((name) => [name, median(runs.map((run) => run.figures[name]))]),
  ) as Record<FigureName, number>;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
