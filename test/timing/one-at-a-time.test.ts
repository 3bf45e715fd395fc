import { describe, expect, it } from 'vitest';
import { OneAtATime } from '../../src/timing/index.js';

/** A piece of work that logs its start and end, and ends when released. */
function gated(log: string[], name: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const work = async () => {
    log.push(`start ${name}`);
    await gate;
    log.push(`end ${name}`);
    return name;
  };
  return { work, release };
}

describe('OneAtATime', () => {
  it('runs work of one key in call order, one at a time, and other keys side by side', async () => {
    const queue = new OneAtATime();
    const log: string[] = [];
    const [a1, a2, b1] = [gated(log, 'a1'), gated(log, 'a2'), gated(log, 'b1')];
    const results = [queue.run('a', a1.work), queue.run('a', a2.work), queue.run('b', b1.work)];
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log).toEqual(['start a1', 'start b1']);

    a2.release();
    b1.release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log).toEqual(['start a1', 'start b1', 'end b1']);

    a1.release();
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'b1']);
    expect(log).toEqual(['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
  });

  it('fails only the caller whose work failed; the work behind it still runs', async () => {
    const queue = new OneAtATime();
    const failing = queue.run('a', () => Promise.reject(new Error('disk full')));
    const next = queue.run('a', () => Promise.resolve('written'));

    await expect(failing).rejects.toThrow('disk full');
    expect(await next).toBe('written');
  });
});
