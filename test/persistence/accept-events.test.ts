import { describe, expect, it } from 'vitest';
import type { InboxItem } from '../../src/domain/index.js';
import { acceptEvents, MemorySourceStore } from '../../src/persistence/index.js';
import { messageFor, userSourceNumber } from '../support/host-harness.js';
import { recordingLogger } from '../support/recording-logger.js';

/** A memory store whose `accept` waits for a source's gate, and records the order of the claims. */
function gatedStore(slowSourceId: string) {
  const store = new MemorySourceStore();
  const claimed: string[] = [];
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    claimed,
    open,
    store: {
      accept: async (item: InboxItem) => {
        if (item.source.id === slowSourceId) await gate;
        claimed.push(`${item.source.id}:${(item as { text: string }).text}`);
        return store.accept(item);
      },
    },
  };
}

describe('acceptEvents (the one accept path of the webhook and the actor host)', () => {
  const a = userSourceNumber(1);
  const b = userSourceNumber(2);

  it("keeps each source's events in order and does not hold one source up for another", async () => {
    const { store, claimed, open } = gatedStore(a.id);
    const told: string[] = [];
    const accepting = acceptEvents(
      store,
      [messageFor(a, 'a1'), messageFor(b, 'b1'), messageFor(a, 'a2'), messageFor(b, 'b2')],
      recordingLogger().logger,
      (sourceId) => told.push(sourceId),
    );
    // b is claimed while a is still waiting on its first event, and told of its work at once.
    await expect.poll(() => claimed).toEqual([`${b.id}:b1`, `${b.id}:b2`]);
    expect(told).toEqual([b.id]);
    open();
    const result = await accepting;

    expect(claimed).toEqual([`${b.id}:b1`, `${b.id}:b2`, `${a.id}:a1`, `${a.id}:a2`]);
    expect(result).toEqual({ accepted: 4, duplicates: 0 });
    expect(told).toEqual([b.id, a.id]);
  });

  it('counts a redelivered event as a duplicate and logs it by event and source id only', async () => {
    const store = new MemorySourceStore();
    const { lines, logger } = recordingLogger();
    const first = messageFor(a, 'private words');
    await acceptEvents(store, [first], logger);

    const told: string[] = [];
    const result = await acceptEvents(store, [first, messageFor(b, 'new')], logger, (id) => told.push(id));

    expect(result).toEqual({ accepted: 1, duplicates: 1 });
    expect(told).toEqual([b.id]);
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', eventId: first.eventId, sourceId: a.id }),
    ]);
    const { time: _time, level: _level, message: _message, ...fields } = lines[0]!;
    expect(Object.keys(fields).sort()).toEqual(['eventId', 'sourceId']);
    expect(JSON.stringify(lines)).not.toContain('private words');
  });

  it('fails when the store fails, so the webhook answers 500 and LINE redelivers', async () => {
    const failing = { accept: () => Promise.reject(new Error('table unavailable')) };
    await expect(acceptEvents(failing, [messageFor(a, 'hi')], recordingLogger().logger)).rejects.toThrow(
      'table unavailable',
    );
  });

  // The redelivery finds the stored events claimed: their sources must hear of them now.
  it('tells of the sources whose events went in before it fails for another one', async () => {
    const memory = new MemorySourceStore();
    const store = {
      accept: async (item: InboxItem) => {
        if (item.source.id === b.id) throw new Error('database or disk is full');
        return memory.accept(item);
      },
    };
    const told: string[] = [];

    const accepting = acceptEvents(
      store,
      [messageFor(a, 'a1'), messageFor(b, 'b1'), messageFor(a, 'a2')],
      recordingLogger().logger,
      (sourceId) => told.push(sourceId),
    );

    await expect(accepting).rejects.toThrow('disk is full');
    expect(told).toEqual([a.id]);
    expect(await memory.inbox(a.id)).toHaveLength(2);
  });
});
