import { describe, expect, it } from 'vitest';
import { ScriptedModel, callReply } from '../../src/model/index.js';
import { MemorySourceStore, type Checkpoint, type ClosedTurn } from '../../src/persistence/index.js';
import { createTestHost, messageFor, sourceAtRest, userSourceNumber } from '../support/host-harness.js';
import { until } from '../support/until.js';

// A turn's closing write on a store that sees the inbox inside it (`closeTurn`): it releases
// the source only when nothing waits, and the owner reads no inbox after it (docs/runtime.md,
// "Ownership"). What is accepted around that write must still be answered.

/** A memory store that runs `during` once, right after a closing write committed. */
class StoreWithHook extends MemorySourceStore {
  during: (() => Promise<void>) | undefined;

  override async closeTurn(checkpoint: Checkpoint): Promise<ClosedTurn> {
    const closed = await super.closeTurn(checkpoint);
    const during = this.during;
    this.during = undefined;
    await during?.();
    return closed;
  }
}

describe('closing a turn in one write', () => {
  it('a message accepted just after the write released the source is still answered', async () => {
    const store = new StoreWithHook();
    const source = userSourceNumber(1);
    const { host, delivery } = createTestHost({
      model: new ScriptedModel([callReply('first'), callReply('second')]),
      store,
    });
    // The write saw the inbox empty and released; the owner has not heard back yet.
    store.during = async () => {
      await host.accept([messageFor(source, 'second')]);
    };

    await host.accept([messageFor(source, 'first')]);
    await until(() => delivery.requests.length === 2);
    await until(() => sourceAtRest(store, source.id));

    expect(delivery.requests.map((request) => request.texts)).toEqual([['first'], ['second']]);
    await host.shutdown(1000);
  });
});
