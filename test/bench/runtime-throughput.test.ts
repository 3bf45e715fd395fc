import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkBench, nextMessage, stop } from '../../bench/process-control.js';
import { FIGURE_NAMES, measureContender, type ThroughputOptions } from '../../bench/runtime-throughput.js';

// The runtime benchmark's harness in a tiny configuration: every contender produces every figure.
// Figures only, never the targets: timing belongs to `npm run bench`, not to unit tests.

const tiny: ThroughputOptions = {
  sources: 4,
  conversationTurns: 3,
  measuredRounds: 3,
  concurrency: 4,
  openLoopShare: 0.7,
  openLoopSeconds: 0.5,
  rounds: 1,
};

let line: ChildProcess;
let lineUrl: string;
beforeAll(async () => {
  line = forkBench('fake-line-process.ts');
  ({ url: lineUrl } = await nextMessage<{ url: string }>(line, 'ready'));
});
afterAll(() => stop(line));

describe('the runtime benchmark', () => {
  it.each(['baseline', 'naive', 'kaiwa'])(
    'measures every figure of %s',
    { timeout: 60_000 },
    async (contender) => {
      const run = await measureContender(contender, lineUrl, tiny, { LOG_LEVEL: 'warn' });

      for (const name of FIGURE_NAMES) expect(run.figures[name], name).toSatisfy(Number.isFinite);
      expect(run.figures.failures).toBe(0);
      expect(run.figures.otherReplies).toBe(0);
      expect(run.figures.turnsPerSecond).toBeGreaterThan(0);
      expect(run.figures.cpuMicrosPerTurn).toBeGreaterThan(0);
      expect(run.figures.openLoopAckP99Ms).toBeGreaterThan(0);
      if (contender === 'baseline') {
        expect(run.figures.longWrites).toBe(0);
      } else {
        expect(run.figures.freshWrites).toBeGreaterThan(0);
        expect(run.figures.longLogicalBytes).toBeGreaterThan(0);
        expect(run.figures.longPhysicalBytes).toBeGreaterThan(0);
      }
    },
  );
});
