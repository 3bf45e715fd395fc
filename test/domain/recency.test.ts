import { describe, expect, it } from 'vitest';
import { setMostRecent } from '../../src/domain/index.js';

describe('setMostRecent', () => {
  it('keeps the most recently set keys within the bound and returns the ones it removed', () => {
    const map = new Map<string, number>();
    expect(setMostRecent(map, 'a', 1, 2)).toEqual([]);
    expect(setMostRecent(map, 'b', 2, 2)).toEqual([]);
    // Setting `a` again makes `b` the least recent.
    expect(setMostRecent(map, 'a', 3, 2)).toEqual([]);
    expect(setMostRecent(map, 'c', 4, 2)).toEqual(['b']);
    expect([...map]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
    expect(setMostRecent(map, 'd', 5, 1)).toEqual(['a', 'c']);
    expect([...map]).toEqual([['d', 5]]);
  });
});
