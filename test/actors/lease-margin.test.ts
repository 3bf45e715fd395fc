import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/logging/index.js';
import { ScriptedModel, callReply } from '../../src/model/index.js';
import { MemorySourceStore, MemorySourceTables, type Checkpoint } from '../../src/persistence/index.js';
import { createTestHost, messageFor, sourceAtRest, userSourceNumber } from '../support/host-harness.js';
import { until } from '../support/until.js';
import { WatchedSourceStore } from '../support/watched-source-store.js';

const LEASE_MS = 3_000;
/** The side effect's own timeout: the lease must cover it when the side effect starts. */
const SIDE_EFFECT_TIMEOUT_MS = 1_000;

/** Time that moves only when the test says so (the stores' lease expiry and the hosts' checks). */
class FakeClock {
  private time = 1_000_000;
  now = () => this.time;
  advance(ms: number) {
    this.time += ms;
  }
}

/** A store whose checkpoints are slow: the test acts while one is being written. */
class SlowIntentStore extends WatchedSourceStore {
  /** Runs after a checkpoint committed and before its answer comes back. */
  afterCommit: (checkpoint: Checkpoint) => void | Promise<void> = () => undefined;
  override async checkpoint(checkpoint: Checkpoint) {
    const version = await super.checkpoint(checkpoint);
    await this.afterCommit(checkpoint);
    return version;
  }
}

function hostsOnOneTable(clock: FakeClock) {
  const tables = new MemorySourceTables();
  const hostOptions = { clock, leaseMs: LEASE_MS, sideEffectTimeoutMs: SIDE_EFFECT_TIMEOUT_MS };
  const storeA = new SlowIntentStore(new MemorySourceStore({ tables, clock }));
  const a = createTestHost({
    model: new ScriptedModel([callReply('from a')]),
    store: storeA,
    host: { ...hostOptions, ownerId: 'a' },
  });
  const infos: { message: string; fields: unknown }[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: (message, fields) => infos.push({ message, fields }),
    warn: () => undefined,
    error: () => undefined,
    child: () => logger,
  };
  const b = createTestHost({
    model: new ScriptedModel([]),
    store: new MemorySourceStore({ tables, clock }),
    host: { ...hostOptions, ownerId: 'b', logger },
  });
  return { a, storeA, b, infos };
}

describe('the lease covers every side effect it starts (docs/runtime.md, "Ownership")', () => {
  it('a lease that ran out during the intent write, taken over meanwhile: the old owner stops, one delivery', async () => {
    const clock = new FakeClock();
    const { a, storeA, b, infos } = hostsOnOneTable(clock);
    const source = userSourceNumber(1);
    let taken = false;
    storeA.afterCommit = async (checkpoint) => {
      if (taken || !checkpoint.snapshot || checkpoint.release) return;
      taken = true;
      // The intent took longer than the lease; the other process takes the source over and
      // resumes the delivery before the write's answer reaches its writer.
      clock.advance(LEASE_MS + 500);
      await b.host.recover();
      await until(() => b.delivery.requests.length === 1);
    };

    await a.host.accept([messageFor(source, 'hi')]);
    await until(() => taken);
    await a.host.whenSettled();
    await b.host.whenSettled();

    expect(b.delivery.requests).toEqual([expect.objectContaining({ texts: ['from a'], resumed: true })]);
    expect(a.delivery.requests).toEqual([]);
    expect(await sourceAtRest(storeA, source.id)).toBe(true);
    expect(infos.find((line) => line.message === 'source taken over')?.fields).toMatchObject({
      previousOwner: 'a',
      previousFence: 1,
      fence: 2,
    });
  });

  it('a lease that ran out during the intent write, not taken: the owner renews first, then delivers once', async () => {
    const clock = new FakeClock();
    const { a, storeA } = hostsOnOneTable(clock);
    const source = userSourceNumber(2);
    let slowed = false;
    storeA.afterCommit = (checkpoint) => {
      if (slowed || checkpoint.release) return;
      slowed = true;
      clock.advance(LEASE_MS + 500);
    };

    await a.host.accept([messageFor(source, 'hi')]);
    await a.host.whenSettled();

    expect(a.delivery.requests).toEqual([expect.objectContaining({ texts: ['from a'], resumed: false })]);
    const kinds = storeA.writes.map((write) => write.kind);
    expect(kinds.slice(kinds.indexOf('checkpoint'), kinds.indexOf('checkpoint') + 2)).toEqual([
      'checkpoint',
      'renew',
    ]);
  });

  it('a lease with room for the side effect: no extra write before it', async () => {
    const clock = new FakeClock();
    const { a, storeA } = hostsOnOneTable(clock);
    const source = userSourceNumber(3);

    await a.host.accept([messageFor(source, 'hi')]);
    await a.host.whenSettled();

    expect(a.delivery.texts).toEqual(['from a']);
    expect(storeA.writes.map((write) => write.kind)).not.toContain('renew');
  });
});
