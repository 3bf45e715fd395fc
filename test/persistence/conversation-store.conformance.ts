import { describe, expect, it } from 'vitest';
import type { InboundMessage, JsonObject } from '../../src/domain/index.js';
import {
  VersionConflictError,
  type ConversationStore,
  type SaveRequest,
} from '../../src/persistence/index.js';

let counter = 0;
function message(sourceId: string, text: string): InboundMessage {
  counter++;
  return {
    eventId: `evt-${counter}-${Math.random().toString(36).slice(2)}`,
    source: { kind: 'user', id: sourceId },
    text,
    timestamp: 1_700_000_000_000 + counter,
  };
}

function saveRequest(
  sourceId: string,
  expectedVersion: number,
  overrides: Partial<SaveRequest> = {},
): SaveRequest {
  return {
    sourceId,
    expectedVersion,
    machineVersion: 1,
    snapshot: { value: 'idle', context: { note: `v${expectedVersion + 1}` } },
    busy: false,
    consumedEventIds: [],
    ...overrides,
  };
}

/**
 * The behaviour every ConversationStore must have. Each implementation's test file calls this
 * with a factory that gives a fresh, empty store.
 */
export function conversationStoreConformance(name: string, createStore: () => Promise<ConversationStore>) {
  describe(`${name} store conformance`, () => {
    it('claims an event id once: a second accept of the same event is refused', async () => {
      const store = await createStore();
      const first = message('U-a', 'hello');

      expect(await store.accept(first)).toBe(true);
      expect(await store.accept(first)).toBe(false);
      expect(await store.inbox('U-a')).toEqual([first]);
    });

    it("keeps each source's inbox in arrival order, separate from other sources", async () => {
      const store = await createStore();
      const a = [message('U-a', '1'), message('U-a', '2'), message('U-a', '3')];
      const b = message('U-b', 'other');

      for (const item of [a[0]!, b, a[1]!, a[2]!]) await store.accept(item);

      expect(await store.inbox('U-a')).toEqual(a);
      expect(await store.inbox('U-b')).toEqual([b]);
      expect(await store.inbox('U-none')).toEqual([]);
    });

    it('returns nothing for an unknown conversation', async () => {
      const store = await createStore();
      expect(await store.load('U-unknown')).toBeUndefined();
    });

    it('saves a new conversation at version 0 and loads it back as written', async () => {
      const store = await createStore();
      const snapshot: JsonObject = {
        value: 'idle',
        context: { history: [{ role: 'user', text: 'こんにちは 👋' }] },
      };

      const version = await store.save(saveRequest('U-a', 0, { snapshot, busy: true, machineVersion: 3 }));
      const loaded = await store.load('U-a');

      expect(version).toBe(1);
      expect(loaded).toMatchObject({ sourceId: 'U-a', version: 1, machineVersion: 3, busy: true, snapshot });
      expect(typeof loaded?.updatedAt).toBe('number');
    });

    it('writes only when the version is unchanged (conditional write)', async () => {
      const store = await createStore();
      await store.save(saveRequest('U-a', 0));
      await store.save(saveRequest('U-a', 1));

      await expect(store.save(saveRequest('U-a', 1))).rejects.toBeInstanceOf(VersionConflictError);
      await expect(store.save(saveRequest('U-a', 0))).rejects.toMatchObject({
        expectedVersion: 0,
        actualVersion: 2,
      });
      await expect(store.save(saveRequest('U-new', 5))).rejects.toBeInstanceOf(VersionConflictError);
      expect((await store.load('U-a'))?.version).toBe(2);
    });

    it('lets exactly one of two concurrent writers of the same version win', async () => {
      const store = await createStore();
      await store.save(saveRequest('U-a', 0));

      const results = await Promise.allSettled([
        store.save(saveRequest('U-a', 1, { snapshot: { writer: 'one' } })),
        store.save(saveRequest('U-a', 1, { snapshot: { writer: 'two' } })),
      ]);

      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((result) => result.status === 'rejected');
      expect(rejected?.reason).toBeInstanceOf(VersionConflictError);
      const winner = results.findIndex((result) => result.status === 'fulfilled') === 0 ? 'one' : 'two';
      expect((await store.load('U-a'))?.snapshot).toEqual({ writer: winner });
    });

    it('removes consumed inbox messages in the same save, and only those', async () => {
      const store = await createStore();
      const items = [message('U-a', '1'), message('U-a', '2'), message('U-a', '3')];
      for (const item of items) await store.accept(item);

      await store.save(saveRequest('U-a', 0, { consumedEventIds: [items[0]!.eventId, items[1]!.eventId] }));

      expect(await store.inbox('U-a')).toEqual([items[2]]);
    });

    it('keeps the inbox when a save loses on its version', async () => {
      const store = await createStore();
      const item = message('U-a', 'keep me');
      await store.accept(item);
      await store.save(saveRequest('U-a', 0));

      await expect(
        store.save(saveRequest('U-a', 0, { consumedEventIds: [item.eventId] })),
      ).rejects.toBeInstanceOf(VersionConflictError);
      expect(await store.inbox('U-a')).toEqual([item]);
    });

    it('lists sources with work: waiting messages or a busy conversation', async () => {
      const store = await createStore();
      await store.accept(message('U-waiting', 'hi'));
      await store.save(saveRequest('U-busy', 0, { busy: true }));
      await store.save(saveRequest('U-idle', 0, { busy: false }));

      expect((await store.sourcesWithWork()).sort()).toEqual(['U-busy', 'U-waiting']);
      expect((await store.listSources()).sort()).toEqual(expect.arrayContaining(['U-busy', 'U-idle']));
    });

    it('deletes a source: its conversation and inbox go, its claims stay', async () => {
      const store = await createStore();
      const item = message('U-a', 'forget me');
      await store.accept(item);
      await store.save(saveRequest('U-a', 0));
      await store.save(saveRequest('U-b', 0));

      await store.deleteSource('U-a');

      expect(await store.load('U-a')).toBeUndefined();
      expect(await store.inbox('U-a')).toEqual([]);
      expect(await store.accept(item)).toBe(false);
      expect((await store.load('U-b'))?.version).toBe(1);
      expect(await store.listSources()).toEqual(['U-b']);
    });

    it('does not share objects with the caller (what is stored is a copy)', async () => {
      const store = await createStore();
      const snapshot: JsonObject = { context: { list: [1] } };
      await store.save(saveRequest('U-a', 0, { snapshot }));
      (snapshot.context as { list: number[] }).list.push(2);

      expect((await store.load('U-a'))?.snapshot).toEqual({ context: { list: [1] } });
    });
  });
}
