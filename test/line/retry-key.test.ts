import { describe, expect, it } from 'vitest';
import { retryKeyFor } from '../../src/line/retry-key.js';

describe('push retry keys', () => {
  it('is the same UUID for the same turn and delivery, different otherwise', () => {
    const key = retryKeyFor('01HTURN', 0);
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(retryKeyFor('01HTURN', 0)).toBe(key);
    expect(retryKeyFor('01HTURN', 1)).not.toBe(key);
    expect(retryKeyFor('01HOTHER', 0)).not.toBe(key);
  });
});
