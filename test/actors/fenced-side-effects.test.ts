import { describe, expect, it, vi } from 'vitest';
import { AWAITING_CHECKPOINT_TAG, type DeliveryRequest } from '../../src/machines/index.js';
import { ScriptedModel, callReply, type ModelResponse } from '../../src/model/index.js';
import {
  MemorySourceStore,
  MemorySourceTables,
  OwnershipLostError,
  VersionConflictError,
  type Checkpoint,
} from '../../src/persistence/index.js';
import { RecordingDelivery } from '../support/conversation-harness.js';
import { createTestHost, messageFor, sourceAtRest, userSourceNumber } from '../support/host-harness.js';
import { until } from '../support/until.js';
import { recordingLogger } from '../support/recording-logger.js';
import { WatchedSourceStore } from '../support/watched-source-store.js';

/** A delivery that waits until the test lets it go. */
class GatedDelivery extends RecordingDelivery {
  private release!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  started = 0;
  override async deliver(...args: Parameters<RecordingDelivery['deliver']>) {
    this.started++;
    await this.opened;
    return super.deliver(...args);
  }
  open() {
    this.release();
  }
}

const deadOwner = { ownerId: 'the-other-process', host: 'elsewhere', pid: 1, leaseMs: 30_000 };

/** Another process takes the source over (its owner was thought gone) and writes this head. */
async function takeOverAndWrite(store: MemorySourceStore, checkpoint: Checkpoint) {
  const ownership = (await store.acquire(
    checkpoint.ownership.sourceId,
    { ...deadOwner, heartbeatAt: Date.now() },
    () => true,
  ))!;
  await store.checkpoint({ ...checkpoint, ownership, expectedVersion: ownership.version });
}

/** Rejects with the signal's reason once it aborts: a call that never answers by itself. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
  );
}

/**
 * A host renewing its lease every 100 ms runs a turn until `busy()`; then another process takes
 * the source over, and the host's next renew finds the fence moved on and stops the turn.
 */
async function takenOverWhile(
  parts: { model: ScriptedModel; delivery?: RecordingDelivery },
  busy: () => boolean,
) {
  const tables = new MemorySourceTables();
  const source = userSourceNumber(5);
  const { lines, logger } = recordingLogger();
  const { host, delivery } = createTestHost({
    ...parts,
    store: new MemorySourceStore({ tables }),
    logger,
    host: { leaseMs: 300, sideEffectTimeoutMs: 100 },
  });
  await host.accept([messageFor(source, 'hi')]);
  await until(busy);
  await new MemorySourceStore({ tables }).acquire(
    source.id,
    { ...deadOwner, heartbeatAt: Date.now() },
    () => true,
  );
  await until(() => lines.some((line) => line.message.startsWith('source taken over')));
  await host.whenSettled();
  return { lines, delivery };
}

describe('fenced side effects', () => {
  it('recovery leaves a source to its live owner, even while that owner is delivering', async () => {
    const tables = new MemorySourceTables();
    const source = userSourceNumber(1);
    const delivery = new GatedDelivery();
    const a = createTestHost({
      model: new ScriptedModel([callReply('once')]),
      store: new MemorySourceStore({ tables }),
      delivery,
    });
    await a.host.accept([messageFor(source, 'hi')]);
    await until(() => delivery.started === 1);

    const b = createTestHost({
      model: new ScriptedModel([callReply('twice')]),
      store: new MemorySourceStore({ tables }),
    });
    expect(await b.host.recover()).toBe(1); // busy, with an owner that is alive
    await b.host.whenSettled();
    delivery.open();
    await a.host.whenSettled();

    expect(delivery.texts).toEqual(['once']);
    expect(b.delivery.requests).toEqual([]);
  });

  it('a host that lost the source stops before its next side effect', async () => {
    const tables = new MemorySourceTables();
    const source = userSourceNumber(2);
    let answer!: (response: ModelResponse) => void;
    const slow = new ScriptedModel([() => new Promise<ModelResponse>((resolve) => (answer = resolve))]);
    const a = createTestHost({ model: slow, store: new MemorySourceStore({ tables }) });
    await a.host.accept([messageFor(source, 'hi')]);
    await until(() => slow.calls.length === 1);

    // A second process believes the first dead, takes the source and answers from the inbox.
    const b = createTestHost({
      model: new ScriptedModel([callReply('from b')]),
      store: new MemorySourceStore({ tables }),
      host: { isOwnerGone: () => true },
    });
    await b.host.recover();
    await until(() => b.delivery.requests.length === 1);
    await b.host.whenSettled();
    answer(callReply('from a')); // the first process's model answers late
    await a.host.whenSettled();

    expect(a.delivery.requests).toEqual([]);
    expect(b.delivery.texts).toEqual(['from b']);
  });

  it('a delivery stopped because the source was taken over is not logged as a failure', async () => {
    /** LINE does not answer; the delivery ends only when its turn is stopped. */
    class HangingDelivery extends RecordingDelivery {
      started = 0;
      override deliver(_request: DeliveryRequest, signal = AbortSignal.abort()): Promise<never> {
        this.started++;
        return untilAborted(signal);
      }
    }
    const delivery = new HangingDelivery();
    const { lines } = await takenOverWhile(
      { model: new ScriptedModel([callReply('never shown')]), delivery },
      () => delivery.started === 1,
    );

    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'debug', message: 'delivery stopped with its turn' }),
    );
  });

  it('a model call stopped because the source was taken over is not logged as a failure', async () => {
    /** Gemini does not answer; the call ends only when its turn is stopped. */
    const model = new ScriptedModel([({ signal }) => untilAborted(signal)]);
    const { lines, delivery } = await takenOverWhile({ model }, () => model.calls.length === 1);

    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'debug', message: 'model call stopped with its turn' }),
    );
    expect(delivery.requests).toEqual([]);
  });

  it('never sends a reply whose own checkpoint failed for lost ownership', async () => {
    const store = new WatchedSourceStore(new MemorySourceStore());
    const source = userSourceNumber(3);
    store.beforeCheckpoint = (checkpoint) => {
      throw new OwnershipLostError(checkpoint.ownership.sourceId, checkpoint.ownership.fence, 99, 'someone');
    };
    const { host, delivery } = createTestHost({ model: new ScriptedModel([callReply('no')]), store });

    await host.accept([messageFor(source, 'hi')]);
    await host.whenSettled();

    expect(delivery.requests).toEqual([]);
    expect(host.snapshotOf(source.id)).toBeUndefined(); // the conversation was dropped
  });

  it('retries a checkpoint that failed for a passing reason, then delivers once', async () => {
    const store = new WatchedSourceStore(new MemorySourceStore());
    const source = userSourceNumber(4);
    store.beforeCheckpoint = (_checkpoint, index) => {
      if (index === 0) throw new Error('disk full');
    };
    const { host, delivery } = createTestHost({ model: new ScriptedModel([callReply('yes')]), store });

    await host.accept([messageFor(source, 'hi')]);
    await host.whenSettled();

    expect(delivery.requests).toEqual([expect.objectContaining({ texts: ['yes'], resumed: false })]);
    expect(await sourceAtRest(store, source.id)).toBe(true);
  });

  it('after a version conflict, never resumes a delivery another owner wrote', async () => {
    const inner = new MemorySourceStore();
    const store = new WatchedSourceStore(inner);
    const source = userSourceNumber(5);
    store.beforeCheckpoint = async (checkpoint, index) => {
      if (index !== 0) return;
      // Meanwhile another process took over and wrote the same intent: it delivers, not us.
      await takeOverAndWrite(inner, checkpoint);
      throw new VersionConflictError(source.id, checkpoint.expectedVersion, checkpoint.expectedVersion + 1);
    };
    const { host, delivery } = createTestHost({ model: new ScriptedModel([callReply('mine?')]), store });

    await host.accept([messageFor(source, 'hi')]);
    await host.whenSettled();

    expect(delivery.requests).toEqual([]);
    expect(host.lifecycleOf(source.id)).toMatchObject({ value: 'idle', owned: false });
  });

  it('after a version conflict on a head it still owns (its own write went through), resumes the delivery once', async () => {
    const inner = new MemorySourceStore();
    const store = new WatchedSourceStore(inner);
    const source = userSourceNumber(6);
    store.beforeCheckpoint = async (checkpoint, index) => {
      if (index !== 0) return;
      await inner.checkpoint(checkpoint); // written; the answer is lost
      throw new VersionConflictError(source.id, checkpoint.expectedVersion, checkpoint.expectedVersion + 1);
    };
    const { host, delivery } = createTestHost({ model: new ScriptedModel([callReply('once')]), store });

    await host.accept([messageFor(source, 'hi')]);
    await host.whenSettled();

    expect(delivery.requests).toEqual([expect.objectContaining({ texts: ['once'], resumed: true })]);
    expect(await sourceAtRest(store, source.id)).toBe(true);
  });

  it.each([
    ['a checkpoint that releases, after an inbox read', false],
    ['a closing write that saw the inbox empty (closeTurn)', true],
  ])(
    'after a conflict on the checkpoint that released the source (its write went through), answers what came meanwhile: %s',
    async (_name, closeTurn) => {
      const inner = new MemorySourceStore();
      const store = new WatchedSourceStore(inner, { closeTurn });
      const source = userSourceNumber(7);
      let host: ReturnType<typeof createTestHost>['host'] | undefined;
      store.beforeCheckpoint = async (checkpoint) => {
        const closing = closeTurn ? !checkpoint.busy : checkpoint.release;
        if (!closing || host === undefined) return;
        const current = host;
        host = undefined;
        // Written and released; the answer is lost.
        if (closeTurn) expect((await inner.closeTurn(checkpoint)).released).toBe(true);
        else await inner.checkpoint(checkpoint);
        await current.accept([messageFor(source, 'second')]); // left to this process, the owner then
        throw new VersionConflictError(source.id, checkpoint.expectedVersion, checkpoint.expectedVersion + 1);
      };
      const harness = createTestHost({
        model: new ScriptedModel([callReply('first'), callReply('second')]),
        store,
      });
      host = harness.host;

      await harness.host.accept([messageFor(source, 'first')]);
      await vi.waitFor(() => expect(harness.delivery.requests).toHaveLength(2), { timeout: 5_000 });
      await harness.host.whenSettled();

      expect(harness.delivery.requests.map((request) => request.texts)).toEqual([['first'], ['second']]);
      expect(await sourceAtRest(store, source.id)).toBe(true);
    },
  );

  it('answers a conversation restored at its intent as resumed, without writing it again', async () => {
    const store = new WatchedSourceStore(new MemorySourceStore());
    const source = userSourceNumber(7);
    const first = createTestHost({
      model: new ScriptedModel([callReply('hello')]),
      store,
      delivery: new GatedDelivery(),
    });
    await first.host.accept([messageFor(source, 'hi')]);
    await until(
      () =>
        first.host.snapshotOf(source.id)?.hasTag(AWAITING_CHECKPOINT_TAG) === false &&
        store.checkpointsOf(source.id).length === 1,
    );
    await first.host.shutdown(10); // stops before sending: the delivery is still to do

    const second = createTestHost({ model: new ScriptedModel([]), store });
    const checkpointsBefore = store.checkpointsOf(source.id).length;
    await second.host.recover();
    await until(() => sourceAtRest(store, source.id));

    expect(second.delivery.requests).toEqual([expect.objectContaining({ texts: ['hello'], resumed: true })]);
    expect(store.checkpointsOf(source.id).length - checkpointsBefore).toBe(1); // only the sent marker
  });
});
