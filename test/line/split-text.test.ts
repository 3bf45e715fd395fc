import { describe, expect, it } from 'vitest';
import { splitForLine } from '../../src/line/split-text.js';

describe('splitting text for LINE', () => {
  it('keeps a short text whole', () => {
    expect(splitForLine(['hello'])).toEqual(['hello']);
  });

  it('cuts on a paragraph boundary before a hard cut', () => {
    const first = 'a'.repeat(3000);
    const second = 'b'.repeat(3000);
    expect(splitForLine([`${first}\n\n${second}`])).toEqual([first, second]);
  });

  it('cuts on a sentence or a space when there is no paragraph', () => {
    const text = `${'word '.repeat(1200)}end`; // 6003 characters
    const parts = splitForLine([text]);
    expect(parts).toHaveLength(2);
    expect(parts.every((part) => part.length <= 5000)).toBe(true);
    expect(parts[0]!.endsWith('word')).toBe(true);
    expect(parts.join(' ')).toBe(text);
  });

  it('never splits a surrogate pair: an emoji counts as 2 UTF-16 units', () => {
    const text = '😀'.repeat(3000); // 6000 code units, no spaces
    const parts = splitForLine([text]);
    expect(parts.map((part) => part.length)).toEqual([5000, 1000]);
    expect(parts.join('')).toBe(text);

    const shifted = `x${'😀'.repeat(3000)}`; // the 5000th unit is a high surrogate
    const shiftedParts = splitForLine([shifted]);
    expect(shiftedParts[0]!.length).toBe(4999);
    expect(shiftedParts.join('')).toBe(shifted);
    expect(shiftedParts.every((part) => !/[\ud800-\udbff]$/.test(part))).toBe(true);
  });

  it('sends at most 5 messages and marks the truncation visibly', () => {
    const parts = splitForLine(['x'.repeat(30_000)]);
    expect(parts).toHaveLength(5);
    expect(parts.every((part) => part.length <= 5000)).toBe(true);
    expect(parts[4]!.endsWith('…(truncated)')).toBe(true);
  });

  it('splits several texts into messages in order', () => {
    expect(splitForLine(['one', 'two'])).toEqual(['one', 'two']);
  });
});
