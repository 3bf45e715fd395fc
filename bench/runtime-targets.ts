import type { Figures } from './runtime-throughput.js';

/** One benchmark target of SPEC.md ("Benchmark targets, measurable"), judged on the medians. */
export interface TargetResult {
  readonly name: string;
  /** The measured value, as printed. */
  readonly measured: string;
  readonly goal: string;
  readonly pass: boolean;
}

/** The medians of each contender: kaiwa, the naive bot and the bare baseline. */
export interface RuntimeSummary {
  readonly kaiwa: Figures;
  readonly naive: Figures;
  readonly baseline: Figures;
}

/**
 * kaiwa's targets: CPU per turn at zero model latency ≤ 1.0× the naive bot's at a 40-turn
 * conversation and ≤ 1.5× the bare baseline's; webhook ack p99 ≤ 200 ms at 70 % of the maximum
 * rate; logical bytes written per turn within 10 % from turn 1 to a 40-turn conversation.
 * A figure that is not a number fails its target.
 */
export function runtimeTargets(summary: RuntimeSummary): TargetResult[] {
  const { kaiwa, naive, baseline } = summary;
  const ratio = (value: number, reference: number) => value / reference;
  const versusNaive = ratio(kaiwa.cpuMicrosPerTurn, naive.cpuMicrosPerTurn);
  const versusBaseline = ratio(kaiwa.cpuMicrosPerTurn, baseline.cpuMicrosPerTurn);
  const bytesChange = ratio(kaiwa.longLogicalBytes, kaiwa.freshLogicalBytes) - 1;
  return [
    {
      name: 'CPU per turn, kaiwa ÷ naive bot, 40-turn conversations',
      measured: `${versusNaive.toFixed(2)}×`,
      goal: '≤ 1.00×',
      pass: versusNaive <= 1,
    },
    {
      name: 'CPU per turn, kaiwa ÷ bare baseline',
      measured: `${versusBaseline.toFixed(2)}×`,
      goal: '≤ 1.50×',
      pass: versusBaseline <= 1.5,
    },
    {
      name: `kaiwa's webhook ack p99 at 70 % of its maximum rate (${kaiwa.openLoopTurnsPerSecond.toFixed(0)} turns/s)`,
      measured: `${kaiwa.openLoopAckP99Ms.toFixed(1)} ms`,
      goal: '≤ 200 ms',
      pass: kaiwa.openLoopAckP99Ms <= 200,
    },
    {
      name: "kaiwa's logical bytes per turn, 40-turn conversation against turn 1",
      measured: `${bytesChange >= 0 ? '+' : ''}${(bytesChange * 100).toFixed(1)} %`,
      goal: 'within ±10 %',
      // Compared as bytes, not as a rounded ratio: 1,100 B after 1,000 B is within 10 %.
      pass:
        kaiwa.freshLogicalBytes > 0 &&
        Math.abs(kaiwa.longLogicalBytes - kaiwa.freshLogicalBytes) <= 0.1 * kaiwa.freshLogicalBytes,
    },
  ];
}
