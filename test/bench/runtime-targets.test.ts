import { describe, expect, it } from 'vitest';
import { runtimeTargets } from '../../bench/runtime-targets.js';
import { FIGURE_NAMES, type Figures } from '../../bench/runtime-throughput.js';

// How the targets are judged from given figures (never from a timed run).

const figures = (values: Partial<Figures>): Figures => ({
  ...(Object.fromEntries(FIGURE_NAMES.map((name) => [name, 1])) as Figures),
  ...values,
});

describe('the runtime targets', () => {
  it('pass at their bounds: 1.0× the naive bot, 1.5× the baseline, 200 ms, +10 %', () => {
    const targets = runtimeTargets({
      kaiwa: figures({
        cpuMicrosPerTurn: 300,
        openLoopAckP99Ms: 200,
        freshLogicalBytes: 1000,
        longLogicalBytes: 1100,
      }),
      naive: figures({ cpuMicrosPerTurn: 300 }),
      baseline: figures({ cpuMicrosPerTurn: 200 }),
    });

    expect(targets.map((target) => target.pass)).toEqual([true, true, true, true]);
  });

  it('fail past them, and on a figure that is not a number', () => {
    const past = runtimeTargets({
      kaiwa: figures({
        cpuMicrosPerTurn: 301,
        openLoopAckP99Ms: 201,
        freshLogicalBytes: 1000,
        longLogicalBytes: 899,
      }),
      naive: figures({ cpuMicrosPerTurn: 300 }),
      baseline: figures({ cpuMicrosPerTurn: 200 }),
    });
    const missing = runtimeTargets({
      kaiwa: figures({
        cpuMicrosPerTurn: Number.NaN,
        openLoopAckP99Ms: Number.NaN,
        freshLogicalBytes: 0,
        longLogicalBytes: 0,
      }),
      naive: figures({}),
      baseline: figures({}),
    });

    expect(past.map((target) => target.pass)).toEqual([false, false, false, false]);
    expect(missing.map((target) => target.pass)).toEqual([false, false, false, false]);
  });
});
