import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineExceededError, withDeadline } from '../../src/timing/index.js';

const START = Date.UTC(2026, 0, 1);

beforeEach(() => {
  vi.useFakeTimers({ now: START });
});
afterEach(() => {
  vi.useRealTimers();
});

const never = () => new Promise<never>(() => {});

describe('withDeadline', () => {
  it("settles with the work's result before the deadline and clears its timer", async () => {
    const result = withDeadline(() => Promise.resolve('done'), { deadline: START + 1_000 });

    await expect(result).resolves.toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it("passes the work's failure through as it is", async () => {
    const failure = new Error('the service said no');
    await expect(withDeadline(() => Promise.reject(failure), { deadline: START + 1_000 })).rejects.toBe(
      failure,
    );
    expect(vi.getTimerCount()).toBe(0);
  });

  it('turns a synchronous throw of the work into a rejection', async () => {
    const failure = new Error('thrown before any await');
    const work = (): Promise<never> => {
      throw failure;
    };
    await expect(withDeadline(work, { deadline: START + 1_000 })).rejects.toBe(failure);
  });

  it("rejects at the deadline, aborting the work's signal with the same error", async () => {
    let seen: AbortSignal | undefined;
    const result = withDeadline(
      (signal) => {
        seen = signal;
        return never();
      },
      { deadline: START + 1_000 },
    );
    const outcome = result.catch((error: unknown) => error);

    await vi.advanceTimersByTimeAsync(999);
    expect(seen?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);

    const error = await outcome;
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error).toMatchObject({ name: 'DeadlineExceededError', deadline: START + 1_000 });
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(error);
  });

  it('measures the deadline on the injected clock', async () => {
    // A clock an hour ahead of the timers: the deadline is 50 ms away on it.
    const now = () => Date.now() + 3_600_000;
    const outcome = withDeadline(never, { deadline: START + 3_600_050, now }).catch(
      (error: unknown) => error,
    );

    await vi.advanceTimersByTimeAsync(49);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toBeInstanceOf(DeadlineExceededError);
  });

  it('does not start the work when the deadline has already passed', async () => {
    const work = vi.fn(never);
    await expect(withDeadline(work, { deadline: START })).rejects.toBeInstanceOf(DeadlineExceededError);
    expect(work).not.toHaveBeenCalled();
  });

  it("rejects with the caller's reason as soon as its signal aborts, even when the work ignores it", async () => {
    const controller = new AbortController();
    const reason = new Error('the actor stopped');
    let seen: AbortSignal | undefined;
    const outcome = withDeadline(
      (signal) => {
        seen = signal;
        return never();
      },
      { signal: controller.signal },
    ).catch((error: unknown) => error);

    controller.abort(reason);

    expect(await outcome).toBe(reason);
    expect(seen?.reason).toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('does not start the work when the signal has already aborted', async () => {
    const work = vi.fn(never);
    const reason = new Error('gone');
    await expect(withDeadline(work, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(work).not.toHaveBeenCalled();
  });

  it('leaves no listener and no timer behind when the work wins', async () => {
    const controller = new AbortController();
    await withDeadline(() => Promise.resolve(1), { signal: controller.signal, deadline: START + 5_000 });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('races a promise that is already running', async () => {
    const slow = new Promise((resolve) => setTimeout(() => resolve('late'), 2_000));
    const outcome = withDeadline(slow, { deadline: START + 1_000 }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await outcome).toBeInstanceOf(DeadlineExceededError);

    await expect(withDeadline(Promise.resolve('quick'), { deadline: Date.now() + 1_000 })).resolves.toBe(
      'quick',
    );
  });

  it.each([
    { name: 'after the deadline', deadlineMs: 5 },
    { name: 'when the deadline had passed before the call', deadlineMs: 0 },
  ])('does not leave an abandoned failure unhandled ($name)', async ({ deadlineMs }) => {
    vi.useRealTimers();
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const late = new Promise((_, reject) => setTimeout(() => reject(new Error('too late')), 10));
      const outcome = await withDeadline(late, { deadline: Date.now() + deadlineMs }).catch(
        (e: unknown) => e,
      );
      expect(outcome).toBeInstanceOf(DeadlineExceededError);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('keeps a deadline beyond the longest timer Node allows (about 24.8 days) in the future', async () => {
    const month = 30 * 24 * 3_600_000;
    const outcome = withDeadline(never, { deadline: START + month }).catch((error: unknown) => error);
    let settled = false;
    void outcome.then(() => (settled = true));

    await vi.advanceTimersByTimeAsync(2 ** 31);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(month - 2 ** 31);
    expect(await outcome).toBeInstanceOf(DeadlineExceededError);
  });

  it('runs the work unbounded when given neither deadline nor signal', async () => {
    await expect(withDeadline(() => Promise.resolve(7))).resolves.toBe(7);
  });
});
