import { describe, expect, it } from 'vitest';
import { cutText, mayHoldLoneSurrogates, wellFormed } from '../../src/domain/index.js';

const HIGH = '😀'.slice(0, 1);
const LOW = '😀'.slice(1);

describe('wellFormed', () => {
  it('replaces each lone surrogate with U+FFFD and keeps every pair', () => {
    expect(wellFormed(`a${HIGH}b${LOW}c😀`)).toBe('a\uFFFDb\uFFFDc😀');
    expect(wellFormed(`${LOW}${HIGH}`)).toBe('\uFFFD\uFFFD');
  });

  it('makes strings well-formed at any depth, property names included, and leaves other values', () => {
    const value = { text: `x${HIGH}`, list: [1, null, true, [`y${LOW}`]], [`k${HIGH}`]: 'v', ok: 'fine' };

    expect(wellFormed(value)).toEqual({
      text: 'x\uFFFD',
      list: [1, null, true, ['y\uFFFD']],
      'k\uFFFD': 'v',
      ok: 'fine',
    });
    // The value given is left as it was.
    expect(value.text).toBe(`x${HIGH}`);
  });

  it('returns the very value when nothing in it needed a change', () => {
    const value = { text: 'hello 😀', nested: [{ deep: 'ok' }] };
    expect(wellFormed(value)).toBe(value);
  });

  it('keeps a property named __proto__ a property, never a prototype', () => {
    const parsed = JSON.parse(
      `{"__proto__": {"polluted": "${'\\ud83d'}"}, "text": "${'\\ud83d'}"}`,
    ) as object;

    const made = wellFormed(parsed) as Record<string, unknown>;

    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(made, '__proto__')?.value).toEqual({ polluted: '\uFFFD' });
    expect(made.text).toBe('\uFFFD');
  });

  it('leaves class instances and what lies deeper than any value kaiwa takes in', () => {
    const date = new Date(0);
    let deep: unknown = `z${HIGH}`;
    for (let level = 0; level < 100; level++) deep = [deep];

    expect(wellFormed({ date }).date).toBe(date);
    expect(wellFormed(deep)).toBe(deep);
  });
});

describe('mayHoldLoneSurrogates', () => {
  it('is true only for JSON text with a surrogate escape, which UTF-8 alone never holds', () => {
    expect(mayHoldLoneSurrogates(JSON.stringify({ text: `a${HIGH}` }))).toBe(true);
    expect(mayHoldLoneSurrogates('{"text":"\\uD83D\\uDE00"}')).toBe(true);
    expect(mayHoldLoneSurrogates(JSON.stringify({ text: 'emoji as UTF-8 😀 and \\u0041' }))).toBe(false);
  });
});

describe('cutText', () => {
  it('keeps at most the length asked, one unit less rather than half an emoji', () => {
    expect(cutText('a😀b', 2)).toBe('a');
    expect(cutText('a😀b', 3)).toBe('a😀');
    expect(cutText('short', 10)).toBe('short');
    expect(cutText('😀😀', 3)).toBe('😀');
  });
});
