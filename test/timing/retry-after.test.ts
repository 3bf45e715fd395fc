import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/timing/index.js';

const NOW = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');

describe('retryAfterMs (RFC 9110 Retry-After)', () => {
  it.each([
    { header: '3', expected: 3_000 },
    { header: ' 120 ', expected: 120_000 },
    { header: '0', expected: 0 },
    { header: 'Wed, 21 Oct 2026 07:28:17 GMT', expected: 17_000 },
    { header: 'Wed, 21 Oct 2026 07:27:00 GMT', expected: 0 },
  ])('reads "$header" as $expected ms', ({ header, expected }) => {
    expect(retryAfterMs(header, NOW)).toBe(expected);
  });

  it.each([undefined, null, '', 'soon', '-5', '1.5'])('ignores %j', (header) => {
    expect(retryAfterMs(header, NOW)).toBeUndefined();
  });
});
