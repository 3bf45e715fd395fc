import { describe, expect, it } from 'vitest';
import { defaults } from '../../src/defaults/index.js';
import { DEFAULT_CLAIM_TTL_MS, resolveSourceStoreOptions } from '../../src/persistence/index.js';

describe('resolveSourceStoreOptions', () => {
  it('fills in the defaults every store used to fill in itself', () => {
    const resolved = resolveSourceStoreOptions({});
    expect(resolved.claimTtlMs).toBe(DEFAULT_CLAIM_TTL_MS);
    expect(resolved.maxInbox).toBe(defaults.store.maxInbox);
    expect(Math.abs(resolved.clock.now() - Date.now())).toBeLessThan(1_000);
    expect(() => resolved.onWriteStep('accept:claim')).not.toThrow();
  });

  it('keeps what the caller gave', () => {
    const clock = { now: () => 42 };
    const onWriteStep = (): void => {};
    expect(resolveSourceStoreOptions({ clock, claimTtlMs: 5, maxInbox: 3, onWriteStep })).toEqual({
      clock,
      claimTtlMs: 5,
      maxInbox: 3,
      onWriteStep,
    });
  });
});
