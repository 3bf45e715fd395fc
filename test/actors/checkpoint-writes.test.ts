import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedModel, callReply, type ModelResponse } from '../../src/model/index.js';
import { MemorySourceStore, openSqliteSourceStore, type SourceStore } from '../../src/persistence/index.js';
import { createTestHost, messageFor, userSourceNumber } from '../support/host-harness.js';
import { WatchedSourceStore, type RecordedWrite } from '../support/watched-source-store.js';

// A short text answered with a 1 KB thought signature, as docs/persistence.md assumes.
const answer: ModelResponse = {
  ...callReply('Sure, here is a short answer.'),
  providerParts: [{ thoughtSignature: 'x'.repeat(1024) }],
};

const cleanups: (() => Promise<void>)[] = [];
afterAll(() => Promise.all(cleanups.map((cleanup) => cleanup())));

const stores: [string, () => Promise<SourceStore>][] = [
  ['memory', () => Promise.resolve(new MemorySourceStore())],
  [
    'SQLite',
    async () => {
      const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-writes-'));
      const store = await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db') });
      cleanups.push(async () => {
        await store.close();
        await rm(directory, { recursive: true, force: true });
      });
      return store;
    },
  ],
];

describe.each(stores)('what a turn writes on the %s store', (_name, createStore) => {
  it('a simple reply turn writes two checkpoints after accept, and as many bytes at turn 40 as at turn 1', async () => {
    const store = new WatchedSourceStore(await createStore());
    const source = userSourceNumber(1);
    const { host } = createTestHost({
      model: new ScriptedModel([answer], { repeatLast: true }),
      store,
      host: { settings: { maxModelCallsPerMinute: 0 } },
    });
    const turns: RecordedWrite[][] = [];
    const inboxReads: number[] = [];
    const readsSoFar = () => store.inboxReads.get(source.id) ?? 0;

    for (let turn = 1; turn <= 40; turn++) {
      const before = store.writes.length;
      const readsBefore = readsSoFar();
      await host.accept([messageFor(source, `message number ${turn}`)]);
      await host.whenSettled();
      turns.push(store.writes.slice(before));
      inboxReads.push(readsSoFar() - readsBefore);
    }

    const checkpoints = turns.map((writes) => writes.filter((write) => write.kind === 'checkpoint'));
    expect(checkpoints.map((writes) => writes.length)).toEqual(turns.map(() => 2));
    // The rest is the claim and inbox append of `accept` and taking the source — one write on
    // SQLite, whose accept takes the idle source itself: the marker, written with the inbox
    // empty, gives the source back in the same write.
    const taking = store.acceptAndAcquire ? ['acceptAndAcquire'] : ['accept', 'acquire'];
    expect(turns.map((writes) => writes.map((write) => write.kind).sort())).toEqual(
      turns.map(() => [...taking, 'checkpoint', 'checkpoint'].sort()),
    );
    const bytes = checkpoints.map((writes) => writes.reduce((sum, write) => sum + write.bytes, 0));
    expect(bytes[39]! / bytes[0]!).toBeGreaterThan(0.9);
    expect(bytes[39]! / bytes[0]!).toBeLessThan(1.1);
    // The intent holds the head, the user entry, the model entry and the consumed inbox item; the marker the head and the tool entry.
    const [intent, marker] = checkpoints[39]!.map((write) => write.checkpoint!);
    expect(intent?.appended.map((record) => record.entry.role)).toEqual(['user', 'model']);
    expect(intent?.consumedKeys).toHaveLength(1);
    expect(marker?.appended.map((record) => record.entry.role)).toEqual(['tool']);
    expect(marker?.busy).toBe(false);
    expect(intent?.release).toBeFalsy();
    // The marker is the turn's closing write: it gave the source back, having seen the inbox
    // empty inside the write — the turn's one inbox read is the one that found its message
    // (a new source's first load also reads its first item, for the source's kind).
    expect(inboxReads).toEqual(turns.map((_, index) => (index === 0 ? 2 : 1)));
    expect((await store.load(source.id, { maxEntries: 1, maxBytes: 1e6 })).head?.owner).toBeUndefined();
  });
});
