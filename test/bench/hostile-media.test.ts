import { describe, expect, it } from 'vitest';
import { measureHostileMedia } from '../../bench/hostile-media-measure.js';

// The hostile-media benchmark's measurement in a tiny configuration: the bot takes the webhooks,
// downloads each image once and answers every one. Memory figures only, never a bound on them:
// those belong to `npm run bench:hostile`.

describe('the hostile-media benchmark', () => {
  it(
    'gets every image answered, each downloaded once, and reads the bot memory around it',
    { timeout: 60_000 },
    async () => {
      const figures = await measureHostileMedia({
        sources: 3,
        imageBytes: 256 * 1024,
        idleMs: 0,
        replyTimeoutMs: 30_000,
      });

      expect(figures.downloads).toBe(3);
      expect(figures.peakMiB).toBeGreaterThanOrEqual(figures.idleMiB);
      for (const value of Object.values(figures)) expect(value).toSatisfy(Number.isFinite);
    },
  );
});
