import { QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryEntry, JsonObject } from '../../src/domain/index.js';
import { DynamoDbStore, VersionConflictError } from '../../src/persistence/index.js';
import {
  DynamoDbSourceStore,
  type DynamoDbSourceStoreOptions,
} from '../../src/persistence/dynamodb-source-store.js';
import { OwnershipLostError } from '../../src/persistence/ownership-lost-error.js';
import type { HistoryRecord, Ownership } from '../../src/persistence/source-store.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import {
  checkpointOf,
  entries,
  messageFor,
  modelRecord,
  owner,
  toolRecord,
  userRecord,
} from '../support/source-records.js';

let local: DynamoDbLocal;
const wide = { maxEntries: 200, maxBytes: 128 * 1024 };
const alwaysAlive = () => false;

async function freshStore(options: Partial<DynamoDbSourceStoreOptions> = {}) {
  const tableName = await local.createTable();
  return { tableName, store: new DynamoDbSourceStore({ client: local.client, tableName, ...options }) };
}

async function sortKeys(tableName: string, sourceId: string, client: DynamoDBClient = local.client) {
  const { Items } = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: sourceId } },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => item.sk!.S!);
}

async function owned(store: DynamoDbSourceStore, sourceId = 'U1', name = 'a'): Promise<Ownership> {
  const ownership = await store.acquire(sourceId, owner(name), alwaysAlive);
  if (!ownership) throw new Error('not acquired');
  return ownership;
}

/** Writes `turns` simple reply turns the way the runtime does; returns the records written. */
async function writeTurns(
  store: DynamoDbSourceStore,
  ownership: Ownership,
  turns: number,
  from = { version: 0, seq: 0 },
) {
  let { version, seq } = from;
  const records: HistoryRecord[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const asked = [userRecord(seq + 1), modelRecord(seq + 2, { signatureBytes: 64 })];
    version = await store.checkpoint(checkpointOf(ownership, version, { appended: asked, busy: true }));
    const closed = [toolRecord(seq + 3)];
    version = await store.checkpoint(checkpointOf(ownership, version, { appended: closed }));
    records.push(...asked, ...closed);
    seq += 3;
  }
  return { version, seq, records };
}

// Without Java a developer's run skips these; under CI=true they run and fail instead.
describe.skipIf(!dynamoDbLocalRequired())('DynamoDB source store on DynamoDB Local', () => {
  beforeAll(async () => {
    local = await startDynamoDbLocal();
  });
  afterAll(async () => {
    await local?.stop();
  });

  describe('inbox', () => {
    it('claims an event once, orders by event timestamp, and counts attempts', async () => {
      const { store } = await freshStore();
      const later = messageFor('U1', 'b', 2_000);
      const earlier = messageFor('U1', 'a', 1_000);

      expect(await store.accept(later)).toBe(true);
      expect(await store.accept(earlier)).toBe(true);
      expect(await store.accept(earlier)).toBe(false);
      const inbox = await store.inbox('U1');
      await store.countAttempt('U1', inbox[0]!.key);

      expect((await store.inbox('U1')).map(({ item, attempts }) => [item.eventId, attempts])).toEqual([
        ['a', 1],
        ['b', 0],
      ]);
      expect(await store.inbox('U1', 1)).toHaveLength(1);
    });
  });

  describe('ownership', () => {
    it('gives a source to one owner at a time, with a new fence on every acquire', async () => {
      const { store } = await freshStore();
      const first = await owned(store, 'U1', 'a');

      expect(await store.acquire('U1', owner('b'), alwaysAlive)).toBeUndefined();
      await store.release(first);
      const second = await owned(store, 'U1', 'b');

      expect(first).toMatchObject({ sourceId: 'U1', ownerId: 'a-owner', fence: 1, version: 0 });
      expect(second).toMatchObject({ ownerId: 'b-owner', fence: 2 });
    });

    it('takes over when the lease ran out or the owner is gone, and fences the old owner out', async () => {
      let now = 1_000_000;
      const { store } = await freshStore({ now: () => now });
      const stale = await store.acquire('U1', owner('a', { heartbeatAt: now, leaseMs: 10_000 }), alwaysAlive);
      const dead = await store.acquire('U2', owner('a', { heartbeatAt: now, leaseMs: 10_000 }), alwaysAlive);

      now += 10_001;
      const afterLease = await store.acquire('U1', owner('b', { heartbeatAt: now }), alwaysAlive);
      const afterDeath = await store.acquire(
        'U2',
        owner('b', { heartbeatAt: now }),
        (o) => o.ownerId === 'a-owner',
      );

      expect(afterLease?.fence).toBe(2);
      expect(afterDeath?.fence).toBe(2);
      await expect(store.renew(stale!, now)).rejects.toBeInstanceOf(OwnershipLostError);
      await expect(store.checkpoint(checkpointOf(dead!, 0))).rejects.toBeInstanceOf(OwnershipLostError);
      await store.release(stale!); // lost already: nothing happens
      expect((await store.listSources()).find((source) => source.sourceId === 'U1')?.owner?.ownerId).toBe(
        'b-owner',
      );
    });

    it('renews the lease, so a live owner is not taken over', async () => {
      let now = 1_000_000;
      const { store } = await freshStore({ now: () => now });
      const ownership = await store.acquire(
        'U1',
        owner('a', { heartbeatAt: now, leaseMs: 10_000 }),
        alwaysAlive,
      );
      now += 8_000;
      await store.renew(ownership!, now);
      now += 8_000;

      expect(await store.acquire('U1', owner('b', { heartbeatAt: now }), alwaysAlive)).toBeUndefined();
    });
  });

  describe('checkpoints and loads', () => {
    it('returns nothing for a source never checkpointed, even after an acquire', async () => {
      const { store } = await freshStore();
      expect(await store.load('U-none', wide)).toEqual({ head: undefined, history: [] });
      await owned(store, 'U1');
      expect(await store.load('U1', wide)).toEqual({ head: undefined, history: [] });
    });

    it('loads back the head and the history written over many turns, oldest first', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      const { version, records } = await writeTurns(store, ownership, 5);

      const loaded = await store.load('U1', wide);

      expect(loaded.head).toMatchObject({
        sourceId: 'U1',
        version,
        fence: 1,
        machineVersion: 2,
        lastSeq: 15,
        busy: false,
        snapshot: { status: 'active', value: 'idle', context: { note: `v${version}` } },
        owner: { ownerId: 'a-owner' },
      });
      expect(loaded.history).toEqual(records);
    });

    it('writes a turn as one page and keeps the closing entry in the head until the next turn', async () => {
      const { tableName, store } = await freshStore();
      const ownership = await owned(store);
      await store.accept(messageFor('U1', 'e1', 1));
      const [waiting] = await store.inbox('U1');

      let version = await store.checkpoint(
        checkpointOf(ownership, 0, {
          appended: [userRecord(1), modelRecord(2)],
          consumedKeys: [waiting!.key],
          busy: true,
        }),
      );
      expect(await sortKeys(tableName, 'U1')).toEqual(['H#000000000002', 'HEAD']);
      version = await store.checkpoint(checkpointOf(ownership, version, { appended: [toolRecord(3)] }));
      expect(await sortKeys(tableName, 'U1')).toEqual(['H#000000000002', 'HEAD']);
      await store.checkpoint(
        checkpointOf(ownership, version, {
          appended: [userRecord(4), modelRecord(5)],
          busy: true,
          consumedKeys: ['INBOX#none'],
        }),
      );

      expect(await sortKeys(tableName, 'U1')).toEqual(['H#000000000002', 'H#000000000005', 'HEAD']);
      expect((await store.load('U1', wide)).history.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5]);
    });

    it('refuses a stale version with the version that won, and a moved fence as lost ownership', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      await store.accept(messageFor('U1', 'e1', 1));
      const [waiting] = await store.inbox('U1');
      await store.checkpoint(checkpointOf(ownership, 0, { appended: [userRecord(1)] }));
      await store.checkpoint(checkpointOf(ownership, 1, {}));

      const stale = store.checkpoint(checkpointOf(ownership, 1, { consumedKeys: [waiting!.key] }));
      await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
      await expect(stale).rejects.toMatchObject({ expectedVersion: 1, actualVersion: 2 });

      await store.release(ownership);
      const other = await owned(store, 'U1', 'b');
      const fenced = store.checkpoint(checkpointOf(ownership, 2, { consumedKeys: [waiting!.key] }));
      await expect(fenced).rejects.toBeInstanceOf(OwnershipLostError);
      await expect(fenced).rejects.toMatchObject({ fence: 1, actualFence: other.fence });
      expect(await store.inbox('U1')).toHaveLength(1);
    });

    it('refuses lost ownership and conflicts from another store instance too (no remembered head)', async () => {
      const { tableName, store } = await freshStore();
      const ownership = await owned(store);
      await store.checkpoint(checkpointOf(ownership, 0, { appended: [userRecord(1)] }));
      const other = new DynamoDbSourceStore({ client: local.client, tableName });

      await expect(other.checkpoint(checkpointOf(ownership, 0))).rejects.toBeInstanceOf(VersionConflictError);
      await expect(other.checkpoint(checkpointOf({ ...ownership, fence: 7 }, 1))).rejects.toBeInstanceOf(
        OwnershipLostError,
      );
      expect(await other.checkpoint(checkpointOf(ownership, 1, { appended: [toolRecord(2)] }))).toBe(2);
      expect((await store.load('U1', wide)).history.map((record) => record.seq)).toEqual([1, 2]);
    });

    it('rejects records that do not continue above the last saved seq, writing nothing', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      await store.checkpoint(checkpointOf(ownership, 0, { appended: [userRecord(1), toolRecord(2)] }));

      await expect(
        store.checkpoint(checkpointOf(ownership, 1, { appended: [userRecord(2)] })),
      ).rejects.toThrow(/seq 2 is not above 2/);
      expect((await store.load('U1', wide)).head?.version).toBe(1);
    });

    it('loads only the newest window, starting at a user entry', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      const { records } = await writeTurns(store, ownership, 30);

      const loaded = await store.load('U1', { maxEntries: 10, maxBytes: 128 * 1024 });

      expect(loaded.history).toEqual(records.slice(-9));
      expect(loaded.history[0]!.entry.role).toBe('user');
    });

    it('removes taken-back entries from the head and from written pages', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      let { version } = await writeTurns(store, ownership, 3);
      version = await store.checkpoint(checkpointOf(ownership, version, { appended: [userRecord(10)] }));

      version = await store.checkpoint(checkpointOf(ownership, version, { removedSeqs: [10] }));
      await store.checkpoint(checkpointOf(ownership, version, { removedSeqs: [4, 1] }));

      expect((await store.load('U1', wide)).history.map((record) => record.seq)).toEqual([
        2, 3, 5, 6, 7, 8, 9,
      ]);
    });
  });

  describe('forget', () => {
    it('keeps a tombstone head, deletes history, profiles and the inbox up to the forget item only', async () => {
      const { tableName, store } = await freshStore();
      const ownership = await owned(store);
      await store.accept(messageFor('U1', 'before', 1));
      await store.accept({
        kind: 'forget',
        eventId: 'unfollow',
        source: { kind: 'user', id: 'U1' },
        timestamp: 2,
        reason: 'unfollow',
      });
      await store.accept(messageFor('U1', 'after', 3));
      const { version } = await writeTurns(store, ownership, 2);
      await store.saveProfile(ownership, { userId: 'U1', displayName: 'Aiko', fetchedAt: 5 });
      const forgetKey = (await store.inbox('U1')).find(({ item }) => item.eventId === 'unfollow')!.key;

      await store.forget(ownership, forgetKey);

      expect((await store.inbox('U1')).map(({ item }) => item.eventId)).toEqual(['after']);
      expect(await store.profiles('U1')).toEqual([]);
      expect((await sortKeys(tableName, 'U1')).filter((key) => !key.startsWith('INBOX#'))).toEqual(['HEAD']);
      const tombstone = (await store.load('U1', wide)).head;
      expect(tombstone).toMatchObject({
        version,
        fence: ownership.fence,
        lastSeq: 6,
        owner: { ownerId: 'a-owner' },
      });
      expect(tombstone?.snapshot).toBeUndefined();

      // The conversation starts again; seqs are never reused.
      await store.checkpoint(
        checkpointOf(ownership, version, { appended: [userRecord(7)], consumedKeys: ['x'] }),
      );
      expect((await store.load('U1', wide)).history.map((record) => record.seq)).toEqual([7]);
    });

    it('fences a forget out when ownership moved on', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      await store.release(ownership);
      await owned(store, 'U1', 'b');

      await expect(store.forget(ownership, 'INBOX#~')).rejects.toBeInstanceOf(OwnershipLostError);
    });
  });

  describe('profiles and listings', () => {
    it('stores profiles as items of their own, under the fence', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      await store.saveProfile(ownership, { userId: 'Ua', displayName: 'Aiko', fetchedAt: 1 });
      await store.saveProfile(ownership, { userId: 'Ub', fetchedAt: 2 });
      await store.saveProfile(ownership, { userId: 'Ua', displayName: 'Aiko S.', fetchedAt: 3 });
      await store.release(ownership);
      await owned(store, 'U1', 'b');

      await expect(store.saveProfile(ownership, { userId: 'Uc', fetchedAt: 4 })).rejects.toBeInstanceOf(
        OwnershipLostError,
      );
      expect(await store.profiles('U1')).toEqual([
        { userId: 'Ua', displayName: 'Aiko S.', fetchedAt: 3 },
        { userId: 'Ub', fetchedAt: 2 },
      ]);
    });

    it('lists sources with work through the sparse index, and every source for the inspector', async () => {
      const { store } = await freshStore();
      await store.accept(messageFor('U1', 'e1', 1));
      const ownership = await owned(store, 'U2');
      const version = await store.checkpoint(checkpointOf(ownership, 0, { busy: true }));
      expect((await store.sourcesWithWork()).sort()).toEqual(['U1', 'U2']);

      await store.checkpoint(checkpointOf(ownership, version, { busy: false }));
      expect(await store.sourcesWithWork()).toEqual(['U1']);
      expect((await store.listSources()).sort((a, b) => a.sourceId.localeCompare(b.sourceId))).toEqual([
        {
          sourceId: 'U2',
          version: 2,
          owner: expect.objectContaining({ ownerId: 'a-owner' }) as unknown,
          busy: false,
          inboxSize: 0,
          updatedAt: expect.any(Number) as unknown,
        },
      ]);
    });
  });

  describe('time to live', () => {
    it('sets expiresAt on the head, pages and profiles when configured', async () => {
      const now = 1_700_000_000_000;
      const { tableName, store } = await freshStore({ conversationTtlMs: 30 * 86_400_000, now: () => now });
      const ownership = await owned(store);
      await store.checkpoint(checkpointOf(ownership, 0, { appended: [userRecord(1)], consumedKeys: ['x'] }));
      await store.saveProfile(ownership, { userId: 'Ua', fetchedAt: 1 });

      const { Items } = await local.client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'U1' } },
        }),
      );
      expect(Items?.map((item) => [item.sk?.S, item.expiresAt?.N])).toEqual([
        ['H#000000000001', String(now / 1000 + 30 * 86_400)],
        ['HEAD', String(now / 1000 + 30 * 86_400)],
        ['P#Ua', String(now / 1000 + 30 * 86_400)],
      ]);
    });

    it('reads no page past its expiry, even before DynamoDB deleted it', async () => {
      let now = 1_700_000_000_000;
      const { store } = await freshStore({ conversationTtlMs: 86_400_000, now: () => now });
      const ownership = await owned(store);
      const version = await store.checkpoint(
        checkpointOf(ownership, 0, { appended: [userRecord(1), modelRecord(2)], consumedKeys: ['x'] }),
      );
      now += 2 * 86_400_000;
      await store.checkpoint(
        checkpointOf(ownership, version, { appended: [userRecord(3), modelRecord(4)], consumedKeys: ['y'] }),
      );

      expect((await store.load('U1', wide)).history.map((record) => record.seq)).toEqual([3, 4]);
    });
  });

  describe('migration from the first wave', () => {
    it('splits a CONVERSATION item written by the old store into a head, pages and profiles on first load', async () => {
      const { tableName, store } = await freshStore();
      const old = new DynamoDbStore({ client: local.client, tableName });
      const history: HistoryEntry[] = entries([
        userRecord(1, 'こんにちは'),
        modelRecord(2, { signatureBytes: 100 }),
        toolRecord(3),
        userRecord(4),
      ]);
      const snapshot: JsonObject = {
        status: 'active',
        value: 'idle',
        context: {
          source: { kind: 'user', id: 'U1' },
          settings: { maxModelCalls: 3 },
          history: history as unknown as JsonObject[],
          profiles: { Ua: { displayName: 'Aiko', fetchedAt: 7 } },
          recentEventIds: ['event-1'],
        },
      };
      await old.accept(messageFor('U1', 'waiting', 9));
      await old.save({
        sourceId: 'U1',
        expectedVersion: 0,
        machineVersion: 1,
        snapshot,
        busy: true,
        consumedEventIds: [],
      });
      await old.save({
        sourceId: 'U1',
        expectedVersion: 1,
        machineVersion: 1,
        snapshot,
        busy: true,
        consumedEventIds: [],
      });

      const loaded = await store.load('U1', wide);

      expect(loaded.head).toMatchObject({ version: 2, machineVersion: 1, busy: true, lastSeq: 4 });
      expect(loaded.head?.snapshot).toEqual({
        status: 'active',
        value: 'idle',
        context: { source: { kind: 'user', id: 'U1' }, recentEventIds: ['event-1'] },
      });
      expect(entries(loaded.history)).toEqual(history);
      expect(loaded.history.map((record) => record.seq)).toEqual([1, 2, 3, 4]);
      expect(await store.profiles('U1')).toEqual([{ userId: 'Ua', displayName: 'Aiko', fetchedAt: 7 }]);
      expect(await sortKeys(tableName, 'U1')).toEqual([
        'H#000000000004',
        'HEAD',
        expect.stringMatching(/^INBOX#/),
        'P#Ua',
      ]);
      expect(await store.sourcesWithWork()).toEqual(['U1']);

      // The migrated source carries on: the next checkpoint continues at version 2, seq 5.
      const ownership = await owned(store);
      expect(await store.checkpoint(checkpointOf(ownership, 2, { appended: [modelRecord(5)] }))).toBe(3);
      expect((await store.load('U1', wide)).history.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5]);
    });

    it('migrates a source that was acquired before its first load, keeping the owner and fence', async () => {
      const { tableName, store } = await freshStore();
      const old = new DynamoDbStore({ client: local.client, tableName });
      await old.save({
        sourceId: 'U1',
        expectedVersion: 0,
        machineVersion: 1,
        snapshot: { value: 'idle', context: { history: [] } },
        busy: false,
        consumedEventIds: [],
      });
      const ownership = await owned(store);

      const loaded = await store.load('U1', wide);

      expect(loaded.head).toMatchObject({
        version: 1,
        fence: ownership.fence,
        owner: { ownerId: 'a-owner' },
        lastSeq: 0,
      });
      expect(loaded.history).toEqual([]);
      expect(await store.checkpoint(checkpointOf(ownership, 1))).toBe(2);
    });
  });
});
