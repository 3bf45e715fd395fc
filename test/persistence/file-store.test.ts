import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/persistence/index.js';
import { conversationStoreConformance } from './conversation-store.conformance.js';

const directories: string[] = [];
async function freshDirectory() {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-file-store-'));
  directories.push(directory);
  return directory;
}
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

conversationStoreConformance('file', async () => FileStore.open(await freshDirectory()));

describe('file store specifics', () => {
  it('survives a reopen: another FileStore on the same directory sees everything', async () => {
    const directory = await freshDirectory();
    const first = await FileStore.open(directory);
    const message = { eventId: 'e1', source: { kind: 'group' as const, id: 'C1' }, text: 'hi', timestamp: 1 };
    await first.accept(message);
    await first.save({
      sourceId: 'C1',
      expectedVersion: 0,
      machineVersion: 1,
      snapshot: { a: 1 },
      busy: true,
      consumedEventIds: [],
    });

    const second = await FileStore.open(directory);

    expect(await second.accept(message)).toBe(false);
    expect(await second.inbox('C1')).toEqual([message]);
    expect((await second.load('C1'))?.version).toBe(1);
    expect(await second.sourcesWithWork()).toEqual(['C1']);
  });

  it('keeps the inbox message when a second store refuses its duplicate in the same millisecond', async () => {
    const directory = await freshDirectory();
    const frozen = { now: () => 1_000 };
    const message = {
      eventId: 'same',
      source: { kind: 'user' as const, id: 'U1' },
      text: 'hi',
      timestamp: 1,
    };
    const first = await FileStore.open(directory, frozen);
    const second = await FileStore.open(directory, frozen);

    expect(await first.accept(message)).toBe(true);
    expect(await second.accept(message)).toBe(false);

    expect(await first.inbox('U1')).toEqual([message]);
  });

  it('leaves no temporary files behind after atomic writes', async () => {
    const directory = await freshDirectory();
    const store = await FileStore.open(directory);
    for (let version = 0; version < 5; version++) {
      await store.save({
        sourceId: 'U1',
        expectedVersion: version,
        machineVersion: 1,
        snapshot: { version },
        busy: false,
        consumedEventIds: [],
      });
    }
    expect(await readdir(path.join(directory, 'conversations'))).toEqual(['U1.json']);
  });

  it('prunes claims older than their time to live when opened', async () => {
    const directory = await freshDirectory();
    const store = await FileStore.open(directory, { claimTtlMs: 60_000 });
    const message = { eventId: 'old', source: { kind: 'user' as const, id: 'U1' }, text: 'hi', timestamp: 1 };
    await store.accept(message);
    const [claim] = await readdir(path.join(directory, 'claims'));
    const longAgo = new Date(Date.now() - 3_600_000);
    await utimes(path.join(directory, 'claims', claim!), longAgo, longAgo);
    await writeFile(path.join(directory, 'claims', 'fresh'), '1');

    await FileStore.open(directory, { claimTtlMs: 60_000 });

    expect(await readdir(path.join(directory, 'claims'))).toEqual(['fresh']);
  });
});
