import { describe, expect, it } from 'vitest';
import { MemorySourceStore, MemorySourceTables } from '../../src/persistence/index.js';
import { sourceStoreConformance } from './source-store.conformance.js';
import { checkpointOf, neverGone, owner, records, testClock, user } from './source-store-fixtures.js';

sourceStoreConformance('memory', (options) => {
  const tables = new MemorySourceTables();
  return Promise.resolve({
    open: (instance) => Promise.resolve(new MemorySourceStore({ ...options, ...instance, tables })),
  });
});

describe('memory source store specifics', () => {
  it('shares no references with its callers: what was written cannot be changed afterwards', async () => {
    const store = new MemorySourceStore({ clock: testClock() });
    const ownership = (await store.acquire('U-a', owner('alice', testClock()), neverGone))!;
    const snapshot = { value: 'idle', context: { note: 'as written' } };
    const appended = records(1, [user('hello')]);

    await store.checkpoint(checkpointOf(ownership, { snapshot, appended }));
    snapshot.context.note = 'changed later';
    (appended[0]!.entry as { text: string }).text = 'changed later';
    const loaded = await store.load('U-a', { maxEntries: 10, maxBytes: 10_000 });
    (loaded.head!.snapshot!.context as { note: string }).note = 'changed by a reader';

    const again = await store.load('U-a', { maxEntries: 10, maxBytes: 10_000 });
    expect(again.head?.snapshot).toEqual({ value: 'idle', context: { note: 'as written' } });
    expect(again.history[0]?.entry).toMatchObject({ text: 'hello' });
  });
});
