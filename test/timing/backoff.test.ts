import { describe, expect, it } from 'vitest';
import { backoffDelay, type BackoffPolicy } from '../../src/timing/index.js';

const fixed = (value: number) => () => value;
const policy = (overrides: Partial<BackoffPolicy> = {}): BackoffPolicy => ({
  baseMs: 100,
  maxMs: 1_000,
  ...overrides,
});

describe('backoffDelay', () => {
  it.each([
    { jitter: 'full' as const, random: 0, expected: [0, 0, 0, 0, 0, 0] },
    { jitter: 'full' as const, random: 0.5, expected: [50, 100, 200, 400, 500, 500] },
    { jitter: 'full' as const, random: 0.999, expected: [100, 200, 400, 799, 999, 999] },
    { jitter: 'equal' as const, random: 0, expected: [50, 100, 200, 400, 500, 500] },
    { jitter: 'equal' as const, random: 0.999, expected: [100, 200, 400, 800, 1_000, 1_000] },
  ])(
    'doubles per attempt up to the cap with $jitter jitter (random $random)',
    ({ jitter, random, expected }) => {
      const delays = [1, 2, 3, 4, 5, 6].map((attempt) =>
        backoffDelay(attempt, policy({ jitter, random: fixed(random) })),
      );
      expect(delays).toEqual(expected);
    },
  );

  it('uses full jitter unless told otherwise', () => {
    expect(backoffDelay(3, policy({ random: fixed(0.25) }))).toBe(100);
  });

  it('treats attempt 0 or below as the first attempt and does not overflow on huge attempts', () => {
    const options = policy({ random: fixed(0.5) });
    expect(backoffDelay(0, options)).toBe(50);
    expect(backoffDelay(-3, options)).toBe(50);
    expect(backoffDelay(10_000, options)).toBe(500);
  });

  it('decorrelated jitter draws between the base and three times the previous delay, capped', () => {
    const options = policy({ jitter: 'decorrelated', random: fixed(0.5) });
    // No previous delay: the base stands in for it, so between 100 and 300.
    expect(backoffDelay(1, options)).toBe(200);
    expect(backoffDelay(2, options, { previousDelayMs: 200 })).toBe(350);
    expect(backoffDelay(3, options, { previousDelayMs: 900 })).toBe(1_000);
    expect(backoffDelay(3, { ...options, random: fixed(0) }, { previousDelayMs: 900 })).toBe(100);
  });

  it('lets the server-given delay win when it is larger, stretched by up to 10 %', () => {
    expect(backoffDelay(1, policy({ random: fixed(0) }), { serverDelayMs: 17_000 })).toBe(17_000);
    expect(backoffDelay(1, policy({ random: fixed(0.5) }), { serverDelayMs: 17_000 })).toBe(17_850);
    // The cap bounds our own backoff, not what the server asks for.
    expect(backoffDelay(1, policy({ maxMs: 1_000, random: fixed(0) }), { serverDelayMs: 5_000 })).toBe(5_000);
  });

  it('keeps its own backoff when the server-given delay is smaller', () => {
    const options = policy({ jitter: 'equal', random: fixed(0.999) });
    expect(backoffDelay(4, options, { serverDelayMs: 10 })).toBe(800);
  });

  it('stays within [0, cap] for any random draw', () => {
    for (let draw = 0; draw < 1; draw += 0.01) {
      for (const jitter of ['full', 'equal', 'decorrelated'] as const) {
        const delay = backoffDelay(7, policy({ jitter, random: fixed(draw) }), { previousDelayMs: 700 });
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(1_000);
      }
    }
  });

  it('uses Math.random when no random is injected', () => {
    const delays = Array.from({ length: 50 }, () => backoffDelay(4, policy()));
    expect(new Set(delays).size).toBeGreaterThan(1);
    expect(Math.max(...delays)).toBeLessThanOrEqual(800);
  });

  it.each([
    { baseMs: -1, maxMs: 100 },
    { baseMs: 10, maxMs: Number.NaN },
    { baseMs: Infinity, maxMs: 100 },
  ])('refuses a policy with baseMs $baseMs and maxMs $maxMs', (bad) => {
    expect(() => backoffDelay(1, bad)).toThrow(RangeError);
  });
});
