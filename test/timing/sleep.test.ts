import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sleep } from '../../src/timing/index.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether the promise has settled, without waiting for it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('sleep', () => {
  it('resolves after the given time, not before', async () => {
    const waiting = sleep(100);

    await vi.advanceTimersByTimeAsync(99);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(waiting).resolves.toBeUndefined();
  });

  it("rejects with the signal's reason as soon as it aborts, and clears its timer", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    const reason = new Error('the turn was cancelled');

    await vi.advanceTimersByTimeAsync(10);
    controller.abort(reason);

    await expect(waiting).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once, starting no timer, when the signal has already aborted', async () => {
    const reason = new Error('already over');
    await expect(sleep(1_000, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no abort listener behind once it has waited', async () => {
    const controller = new AbortController();
    const waits = Promise.all([sleep(5, controller.signal), sleep(10, controller.signal)]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(2);

    await vi.advanceTimersByTimeAsync(10);
    await waits;

    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('treats a negative time as no wait', async () => {
    const waiting = sleep(-5);
    await vi.advanceTimersByTimeAsync(0);
    await expect(waiting).resolves.toBeUndefined();
  });
});
