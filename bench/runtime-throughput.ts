import { forkBench, nextMessage, stop } from './process-control.js';

export interface ThroughputOptions {
  readonly turns: number;
  readonly warmupTurns: number;
  readonly sources: number;
  readonly concurrency: number;
  readonly rounds: number;
}

export interface ContenderRun {
  readonly contender: string;
  readonly turnsPerSecond: number;
  readonly cpuMicrosPerTurn: number;
  readonly rssMiB: number;
  readonly failures: number;
}

interface CpuMessage {
  usage: NodeJS.CpuUsage;
  memory: NodeJS.MemoryUsage;
}

/**
 * One contender, one round: a fresh bot process, a warm-up, then the measured turns. CPU is
 * the bot process's own `process.cpuUsage()`; the load and LINE are other processes.
 */
export async function measureContender(
  contender: string,
  lineUrl: string,
  options: ThroughputOptions,
): Promise<ContenderRun> {
  const bot = forkBench('bot-process.ts', [contender], { BENCH_LINE_URL: lineUrl });
  const load = forkBench('load-process.ts');
  try {
    const { url } = await nextMessage<{ url: string }>(bot, 'ready');
    const runLoad = async (turns: number, label: string) => {
      load.send({
        type: 'run',
        options: {
          botUrl: url,
          lineUrl,
          turns,
          sources: options.sources,
          concurrency: options.concurrency,
          label,
        },
      });
      return nextMessage<{ elapsedMs: number; failures: number }>(load, 'done');
    };
    const cpu = async () => {
      bot.send({ type: 'cpu' });
      return nextMessage<CpuMessage>(bot, 'cpu');
    };
    await runLoad(options.warmupTurns, `${contender}-warmup`);
    const before = await cpu();
    const result = await runLoad(options.turns, `${contender}-measured`);
    const after = await cpu();
    const cpuMicros = after.usage.user - before.usage.user + (after.usage.system - before.usage.system);
    return {
      contender,
      turnsPerSecond: options.turns / (result.elapsedMs / 1000),
      cpuMicrosPerTurn: cpuMicros / options.turns,
      rssMiB: after.memory.rss / 1024 / 1024,
      failures: result.failures,
    };
  } finally {
    await Promise.all([stop(bot), stop(load)]);
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
