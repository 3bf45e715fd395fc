import { describe, expect, it } from 'vitest';
import { StrandedWork } from '../../src/actors/index.js';
import { recordingLogger } from '../support/recording-logger.js';

describe('stranded work: what a process that died for good left on a shared store', () => {
  function sweeper(listings: (string[] | Error)[]) {
    const { lines, logger } = recordingLogger();
    const adopted: string[] = [];
    const stranded = new StrandedWork({
      store: {
        sourcesWithWork: () => {
          const next = listings.shift() ?? [];
          return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
        },
      },
      adopt: (sourceId) => adopted.push(sourceId),
      logger,
    });
    return { stranded, adopted, lines };
  }

  it('looks at a source only once it had work at two sweeps in a row', async () => {
    const { stranded, adopted } = sweeper([
      ['Ubusy', 'Udead'],
      ['Udead', 'Unew'],
      ['Unew', 'Udead'],
    ]);
    // The first sweep only takes note: a live peer's turn is over long before the next.
    expect(await stranded.sweep()).toEqual([]);
    expect(await stranded.sweep()).toEqual(['Udead']);
    expect(await stranded.sweep()).toEqual(['Unew', 'Udead']);
    expect(adopted).toEqual(['Udead', 'Unew', 'Udead']);
  });

  it('a listing that fails is logged, adopts nothing, and forgets nothing it had seen', async () => {
    const { stranded, adopted, lines } = sweeper([['Udead'], new Error('ThrottlingException'), ['Udead']]);
    await stranded.sweep();
    expect(await stranded.sweep()).toEqual([]);
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'sources with work could not be listed; the next sweep tries again',
    ]);
    expect(await stranded.sweep()).toEqual(['Udead']);
    expect(adopted).toEqual(['Udead']);
  });
});
