import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DescribeTableCommand, DescribeTimeToLiveCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand as QueryDocumentsCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorHost } from '../../src/actors/index.js';
import type { HistoryEntry, JsonObject, Source } from '../../src/domain/index.js';
import { ScriptedModel, callReply, callTools, type ModelRequest } from '../../src/model/index.js';
import { defaults } from '../../src/defaults/index.js';
import { defineTool } from '../../src/tools/index.js';
import {
  ItemTooLargeError,
  OwnershipLostError,
  VersionConflictError,
  type Ownership,
} from '../../src/persistence/index.js';
import {
  DynamoDbSourceStore,
  type DynamoDbSourceStoreOptions,
} from '../../src/persistence/dynamodb-source-store.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { putFirstWaveConversation } from '../support/first-wave-data.js';
import {
  createTestHost,
  messageFor,
  sourceAtRest,
  storedHistory,
  userSourceNumber,
  userTexts,
} from '../support/host-harness.js';
import type { RecordingDelivery } from '../support/conversation-harness.js';
import { randomBase64 } from '../support/reply-turn.js';
import { InjectedFault } from './crash-scenarios.js';
import { unreadableRecordsConformance, type DamageTarget } from './unreadable-records.conformance.js';
import { sourceStoreConformance } from './source-store.conformance.js';
import { until } from '../support/until.js';
import { recordingLogger } from '../support/recording-logger.js';
import {
  checkpointOf,
  exchange,
  forgetEvent,
  message,
  model,
  neverGone,
  owner,
  records,
  testClock,
  tool,
  type TestClock,
  user,
  WIDE,
} from './source-store-fixtures.js';

let local: DynamoDbLocal;

async function freshStore(options: Partial<DynamoDbSourceStoreOptions> & { clock?: TestClock } = {}) {
  const tableName = await local.createTable();
  const clock = options.clock ?? testClock();
  const open = (more: Partial<DynamoDbSourceStoreOptions> = {}) =>
    new DynamoDbSourceStore({ client: local.client, tableName, clock, ...options, ...more });
  return { tableName, clock, open, store: open() };
}

/** The sort keys of a source's items, in table order. */
async function sortKeys(tableName: string, sourceId: string) {
  const { Items } = await local.client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: sourceId } },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => item.sk!.S!);
}

async function owned(store: DynamoDbSourceStore, sourceId = 'U-a', name = 'alice'): Promise<Ownership> {
  const ownership = await store.acquire(sourceId, owner(name, testClock()), neverGone);
  if (!ownership) throw new Error('not acquired');
  return ownership;
}

/** A store whose writes fail at the named step, as a crash there would leave them. */
function faultAt(
  open: (options: Partial<DynamoDbSourceStoreOptions>) => DynamoDbSourceStore,
  faulty: string,
) {
  return open({
    onWriteStep: (step) => {
      if (step === faulty) throw new InjectedFault(step);
    },
  });
}

/** Writes `turns` reply turns as the runtime does: intent (consuming a key), then the sent marker. */
async function writeTurns(store: DynamoDbSourceStore, ownership: Ownership, turns: number) {
  let version = ownership.version;
  for (let turn = 1; turn <= turns; turn++) {
    const [asked, answered, closed] = records(3 * turn - 2, exchange(turn, 'σ'.repeat(64)));
    version = await store.checkpoint(
      checkpointOf(ownership, {
        expectedVersion: version,
        appended: [asked!, answered!],
        consumedKeys: [`INBOX#gone-${turn}`],
      }),
    );
    version = await store.checkpoint(
      checkpointOf(ownership, { expectedVersion: version, appended: [closed!] }),
    );
  }
  return version;
}

/** Deflate that does not inflate, behind the codec byte of `compressJson`. */
const undecodable = new Uint8Array([1, 0xff, 0xff, 0xff, 0xff]);

/** Overwrites a stored record as a console edit or a bad write would; see the conformance suite. */
async function damageItem(
  tableName: string,
  target: DamageTarget | { record: 'tail'; sourceId: string },
): Promise<void> {
  const documents = DynamoDBDocumentClient.from(local.client);
  const update = async (sk: string, name: string, value: unknown) => {
    await documents.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: target.sourceId, sk },
        UpdateExpression: 'SET #name = :value',
        ExpressionAttributeNames: { '#name': name },
        ExpressionAttributeValues: { ':value': value },
      }),
    );
  };
  if (target.record === 'inbox') return update(target.key, 'message', '{"text": "cut');
  if (target.record === 'snapshot') return update('HEAD', 'snapshot', undecodable);
  if (target.record === 'tail') return update('HEAD', 'tail', undecodable);
  if (target.record === 'profile') return update(`P#${target.userId}`, 'fetchedAt', 'not a number');
  // The history page that holds the entry (a test damages an entry already paged).
  const { Items } = await documents.send(
    new QueryDocumentsCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :pages)',
      ExpressionAttributeValues: { ':pk': target.sourceId, ':pages': 'H#' },
    }),
  );
  const page = (Items ?? []).find(
    (item) => Number(item.fromSeq) <= target.seq && target.seq <= Number(String(item.sk).slice(2)),
  );
  if (!page) throw new Error(`no history page holds seq ${target.seq}`);
  return update(String(page.sk), 'records', undecodable);
}

// Without Java a developer's run skips these; under CI=true they run and fail instead.
describe.skipIf(!dynamoDbLocalRequired())('DynamoDB source store on DynamoDB Local', () => {
  beforeAll(async () => {
    local = await startDynamoDbLocal();
  });
  afterAll(async () => {
    await local?.stop();
  });

  sourceStoreConformance('dynamodb', async (options) => {
    const tableName = await local.createTable();
    return {
      open: (instance) =>
        Promise.resolve(
          new DynamoDbSourceStore({ client: local.client, tableName, ...options, ...instance }),
        ),
    };
  });

  unreadableRecordsConformance('dynamodb', async (clock) => {
    const tableName = await local.createTable();
    const store = new DynamoDbSourceStore({ client: local.client, tableName, clock });
    return { store, damage: (target) => damageItem(tableName, target) };
  });

  describe('dynamodb specifics', () => {
    it('writes a turn as one history page and keeps its closing entry in the head until the next turn', async () => {
      const { tableName, store } = await freshStore();
      const ownership = await owned(store);
      const [asked, answered, closed] = records(1, exchange(1));

      const first = await store.checkpoint(
        checkpointOf(ownership, { appended: [asked!, answered!], consumedKeys: ['INBOX#x'] }),
      );
      expect(await sortKeys(tableName, 'U-a')).toEqual(['H#000000000002', 'HEAD']);
      const second = await store.checkpoint(
        checkpointOf(ownership, { expectedVersion: first, appended: [closed!] }),
      );
      expect(await sortKeys(tableName, 'U-a')).toEqual(['H#000000000002', 'HEAD']);
      await store.checkpoint(
        checkpointOf(ownership, {
          expectedVersion: second,
          appended: records(4, [user('next')]),
          consumedKeys: ['INBOX#y'],
        }),
      );

      expect(await sortKeys(tableName, 'U-a')).toEqual(['H#000000000002', 'H#000000000004', 'HEAD']);
      expect((await store.load('U-a', WIDE)).history).toEqual(records(1, [...exchange(1), user('next')]));
    });

    it('a tail that does not read back: history starts after it, and stays so once the next checkpoint wrote', async () => {
      const { tableName, store, open } = await freshStore();
      const ownership = await owned(store);
      let version = ownership.version;
      let seq = 0;
      /** An exchange whose closing entry waits in the head's tail (see above), then the tail is damaged. */
      const damagedExchange = async (n: number) => {
        const [asked, answered, closed] = records(seq + 1, exchange(n));
        seq += 3;
        version = await store.checkpoint(
          checkpointOf(ownership, {
            expectedVersion: version,
            appended: [asked!, answered!],
            consumedKeys: [`INBOX#${n}`],
          }),
        );
        version = await store.checkpoint(
          checkpointOf(ownership, { expectedVersion: version, appended: [closed!] }),
        );
        await damageItem(tableName, { record: 'tail', sourceId: 'U-a' });
      };

      await damagedExchange(1);
      const damaged = await store.load('U-a', WIDE);
      expect(damaged.head).toMatchObject({ version, lastSeq: 3 });
      expect(damaged.history).toEqual([]);
      expect(damaged.unreadable).toEqual([
        { record: 'history', key: 'tail', error: expect.any(String) as string },
      ]);

      // Written by the store that loaded the damaged head, then by one that reads it at the write:
      // the page of the exchange whose answer was in the tail never joins a window again.
      for (const [writer, n] of [
        [store, 2],
        [open(), 4],
      ] as const) {
        if (n === 4) await damagedExchange(3);
        version = await writer.checkpoint(
          checkpointOf(ownership, { expectedVersion: version, appended: records(seq + 1, exchange(n)) }),
        );
        seq += 3;
        const { history, unreadable } = await store.load('U-a', WIDE);
        expect(history).toEqual(records(seq - 2, exchange(n)));
        expect(unreadable).toBeUndefined();
      }
    });

    it('refuses lost ownership and conflicts on a store instance that remembers no head', async () => {
      const { store, open } = await freshStore();
      const ownership = await owned(store);
      await store.checkpoint(checkpointOf(ownership, { appended: records(1, [user('one')]) }));
      const other = open();

      await expect(other.checkpoint(checkpointOf(ownership))).rejects.toBeInstanceOf(VersionConflictError);
      await expect(
        other.checkpoint(checkpointOf({ ...ownership, fence: 7 }, { expectedVersion: 1 })),
      ).rejects.toBeInstanceOf(OwnershipLostError);
      expect(
        await other.checkpoint(
          checkpointOf(ownership, { expectedVersion: 1, appended: records(2, [user('two')]) }),
        ),
      ).toBe(2);
      expect((await store.load('U-a', WIDE)).history).toEqual(records(1, [user('one'), user('two')]));
    });

    it('removes taken-back entries from the head and from written pages', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      let version = await writeTurns(store, ownership, 3);
      version = await store.checkpoint(
        checkpointOf(ownership, { expectedVersion: version, appended: records(10, [user('x')]) }),
      );

      version = await store.checkpoint(
        checkpointOf(ownership, { expectedVersion: version, removedSeqs: [10] }),
      );
      await store.checkpoint(checkpointOf(ownership, { expectedVersion: version, removedSeqs: [4] }));

      expect((await store.load('U-a', WIDE)).history.map(({ seq }) => seq)).toEqual([1, 2, 3, 5, 6, 7, 8, 9]);
    });

    it('reads the window with a Query that stops at the window, whatever the length of the conversation', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      await writeTurns(store, ownership, 40);

      const { history } = await store.load('U-a', { maxEntries: 10, maxBytes: 1_000_000 });

      expect(history.map(({ seq }) => seq)).toEqual([112, 113, 114, 115, 116, 117, 118, 119, 120]);
      expect(history[0]!.entry.role).toBe('user');
    });

    it('refuses a head over 350 KB before writing anything', async () => {
      const { store } = await freshStore();
      const ownership = await owned(store);
      // Base64 of random bytes deflates to three quarters: 480 KB of it stays over the limit.
      const snapshot = { value: 'idle', context: { note: randomBase64(480 * 1024) } };

      const refused = store.checkpoint(
        checkpointOf(ownership, { snapshot, appended: records(1, [user('hi')]) }),
      );

      await expect(refused).rejects.toBeInstanceOf(ItemTooLargeError);
      await expect(refused).rejects.toMatchObject({ sourceId: 'U-a', limitBytes: 350 * 1024 });
      expect(await store.load('U-a', WIDE)).toMatchObject({ head: { version: 0, lastSeq: 0 }, history: [] });
    });

    it('compacts old pages off the hot path when there is no TTL, keeping the window', async () => {
      const { tableName, store } = await freshStore();
      const ownership = await owned(store);
      await writeTurns(store, ownership, 10);
      const window = { maxEntries: 7, maxBytes: 1_000_000 };
      const before = await store.load('U-a', window);

      const deleted = await store.compactHistory('U-a', window);

      expect(before.history.map(({ seq }) => seq)).toEqual([25, 26, 27, 28, 29, 30]);
      expect(deleted).toBe(8);
      expect(await sortKeys(tableName, 'U-a')).toEqual(['H#000000000026', 'H#000000000029', 'HEAD']);
      expect(await store.load('U-a', window)).toEqual(before);
      expect((await store.load('U-a', WIDE)).history).toEqual(before.history);
    });

    describe('checkpoints larger than one transaction', () => {
      const small = { transactionActions: 5, pageJsonBytes: 400 };

      it('deletes consumed items past the transaction right after it, and hides them until then', async () => {
        const { store, open } = await freshStore({ limits: small });
        for (let n = 0; n < 12; n++) await store.accept(message('U-a', `m${n}`));
        const kept = message('U-a', 'kept');
        await store.accept(kept);
        const consumed = (await store.inbox('U-a')).slice(0, 12);
        const ownership = await owned(store);
        const checkpoint = checkpointOf(ownership, {
          appended: records(1, [user('all twelve')]),
          consumedKeys: consumed.map(({ key }) => key),
          busy: true,
        });

        // A crash after the commit, before the deletes: the inbox shows the write done already.
        await expect(faultAt(open, 'checkpoint:inbox').checkpoint(checkpoint)).rejects.toBeInstanceOf(
          InjectedFault,
        );
        expect((await open().inbox('U-a')).map(({ item }) => item)).toEqual([kept]);
        expect((await store.load('U-a', WIDE)).head?.version).toBe(1);

        // Reading the inbox finished the deletes: only the kept item is left in the table.
        const waiting = await open().inbox('U-a');
        expect(waiting.map(({ item }) => item)).toEqual([kept]);
        expect((await store.sourcesWithWork()).sort()).toEqual(['U-a']);
      });

      it('writes pages that do not fit first; a crash before the head leaves them unseen', async () => {
        const { store, open } = await freshStore({ limits: small });
        const ownership = await owned(store);
        await store.checkpoint(
          checkpointOf(ownership, { appended: records(1, exchange(1)), consumedKeys: ['INBOX#x'] }),
        );
        const big = records(
          4,
          [1, 2, 3, 4, 5, 6, 7, 8].map((n) => user(`${n}: ${'long text '.repeat(30)}`)),
        );
        const checkpoint = checkpointOf(ownership, {
          expectedVersion: 1,
          appended: big,
          consumedKeys: ['INBOX#y'],
        });
        const steps: string[] = [];

        await expect(faultAt(open, 'checkpoint:commit').checkpoint(checkpoint)).rejects.toBeInstanceOf(
          InjectedFault,
        );
        expect(await open().load('U-a', WIDE)).toMatchObject({
          head: { version: 1, lastSeq: 3 },
          history: records(1, exchange(1)),
        });

        await open({ onWriteStep: (step) => steps.push(step) }).checkpoint(checkpoint);
        expect(steps.filter((step) => step === 'checkpoint:history').length).toBeGreaterThan(0);
        expect((await open().load('U-a', WIDE)).history).toEqual([...records(1, exchange(1)), ...big]);
      });

      it('never reads a page an interrupted checkpoint left, even once the history grows past it', async () => {
        const { store, open } = await freshStore({ limits: small });
        const ownership = await owned(store);
        const long = records(
          1,
          [1, 2, 3, 4, 5, 6, 7, 8].map((n) => user(`${n}: ${'long text '.repeat(30)}`)),
        );
        const interrupted = faultAt(open, 'checkpoint:commit');
        await expect(
          interrupted.checkpoint(checkpointOf(ownership, { appended: long, consumedKeys: ['INBOX#x'] })),
        ).rejects.toBeInstanceOf(InjectedFault);

        const short = records(
          1,
          [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((n) => user(`s${n}`)),
        );
        let version = 0;
        for (const part of [short.slice(0, 1), short.slice(1, 4), short.slice(4)]) {
          version = await store.checkpoint(
            checkpointOf(ownership, { expectedVersion: version, appended: part, consumedKeys: ['INBOX#y'] }),
          );
        }

        expect((await open().load('U-a', WIDE)).history).toEqual(short);
      });

      it('refuses a checkpoint after a release, even with the head remembered', async () => {
        const { store, open } = await freshStore();
        const ownership = await owned(store);
        await store.load('U-a', WIDE);
        await open().release(ownership); // SIGTERM's release, racing a late checkpoint

        await expect(store.checkpoint(checkpointOf(ownership))).rejects.toMatchObject({
          name: 'OwnershipLostError',
          currentFence: 1,
          currentOwnerId: undefined,
        });
      });

      it("never lets a stale owner's page written ahead replace a newer owner's page", async () => {
        const { store, clock, open } = await freshStore({ limits: small });
        const stale = await owned(store);
        await store.load('U-a', WIDE); // it remembers the head at version 0: no read before writing
        clock.advance(60_000);
        const current = (await store.acquire('U-a', owner('bob', clock), neverGone))!;
        const big = records(
          1,
          [1, 2, 3, 4, 5, 6].map((n) => user(`${n}: ${'long text '.repeat(30)}`)),
        );
        await open().checkpoint(checkpointOf(current, { appended: big, consumedKeys: ['INBOX#x'] }));

        const staleRecords = big.map((record) => ({ ...record, entry: user(`stale ${'text '.repeat(80)}`) }));
        const refused = store.checkpoint(
          checkpointOf(stale, { appended: staleRecords, consumedKeys: ['INBOX#x'] }),
        );

        await expect(refused).rejects.toMatchObject({ name: 'OwnershipLostError', currentFence: 2 });
        expect((await open().load('U-a', WIDE)).history).toEqual(big);
      });

      it('forgets more than one transaction holds: every reader sees all of it, even after a crash', async () => {
        const { tableName, store, open } = await freshStore({ limits: small });
        for (let n = 0; n < 6; n++) await store.accept(message('U-a', `m${n}`));
        const forget = forgetEvent('U-a');
        await store.accept(forget);
        const after = message('U-a', 'after');
        await store.accept(after);
        const ownership = await owned(store);
        await writeTurns(store, ownership, 4);
        for (const userId of ['U1', 'U2', 'U3']) await store.saveProfile(ownership, { userId, fetchedAt: 1 });
        const throughKey = (await store.inbox('U-a')).find(
          ({ item }) => item!.eventId === forget.eventId,
        )!.key;

        await expect(faultAt(open, 'forget:finish').forget(ownership, throughKey)).rejects.toBeInstanceOf(
          InjectedFault,
        );

        const reader = open();
        expect(await reader.profiles('U-a')).toEqual([]);
        expect((await reader.inbox('U-a')).map(({ item }) => item)).toEqual([after]);
        expect(await reader.load('U-a', WIDE)).toMatchObject({
          head: { version: 9, lastSeq: 12 },
          history: [],
        });
        expect(await sortKeys(tableName, 'U-a')).toEqual(['HEAD', expect.stringMatching(/^INBOX#/)]);
      });
    });

    describe('time to live', () => {
      it('sets expiresAt on the head, pages and profiles when configured', async () => {
        const clock = testClock(1_700_000_000_000);
        const { tableName, store } = await freshStore({ clock, conversationTtlMs: 30 * 86_400_000 });
        const ownership = await owned(store);
        await store.checkpoint(
          checkpointOf(ownership, { appended: records(1, [user('hi')]), consumedKeys: ['INBOX#x'] }),
        );
        await store.saveProfile(ownership, { userId: 'Ua', fetchedAt: 1 });

        const { Items } = await local.client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: 'U-a' } },
          }),
        );
        const expiresAt = String(1_700_000_000 + 30 * 86_400);
        expect(Items?.map((item) => [item.sk?.S, item.expiresAt?.N])).toEqual([
          ['H#000000000001', expiresAt],
          ['HEAD', expiresAt],
          ['P#Ua', expiresAt],
        ]);
      });

      it('reads no page past its expiry, even before DynamoDB deleted it', async () => {
        const clock = testClock();
        const { store } = await freshStore({ clock, conversationTtlMs: 86_400_000 });
        const ownership = await owned(store);
        const version = await store.checkpoint(
          checkpointOf(ownership, { appended: records(1, exchange(1)), consumedKeys: ['INBOX#x'] }),
        );
        clock.advance(2 * 86_400_000);
        await store.checkpoint(
          checkpointOf(ownership, {
            expectedVersion: version,
            appended: records(4, exchange(2)),
            consumedKeys: ['INBOX#y'],
          }),
        );

        expect((await store.load('U-a', WIDE)).history).toEqual(records(4, exchange(2)));
      });
    });

    describe('migration from the first wave', () => {
      const history: HistoryEntry[] = [
        user('こんにちは'),
        model('t1', ['c1'], 'σ'.repeat(100)),
        tool('t1', ['c1']),
        user('more'),
      ];
      const queued = message('U-a', 'queued in the snapshot');
      const takenIn = message('U-a', 'taken in, its delete interrupted');
      const snapshot: JsonObject = {
        status: 'active',
        value: 'idle',
        context: {
          source: { kind: 'user', id: 'U-a' },
          settings: { maxModelCalls: 3 },
          history: history as unknown as JsonObject[],
          profiles: { Ua: { displayName: 'Aiko', fetchedAt: 7 } },
          pending: [[queued as unknown as JsonObject]],
          recentEventIds: [takenIn.eventId, queued.eventId],
        },
      };
      const legacy = (version: number) => ({
        sourceId: 'U-a',
        version,
        machineVersion: 1,
        snapshot,
        busy: true,
        updatedAt: 1,
      });

      it('splits a CONVERSATION item written by the old store into a head, pages, profiles and inbox items on first load', async () => {
        const { tableName, store } = await freshStore();
        const waiting = message('U-a', 'waiting');
        // The old store's inbox items had the layout the v2 store writes.
        await store.accept(takenIn);
        await store.accept(waiting);
        await putFirstWaveConversation(local.client, tableName, legacy(2));

        const loaded = await store.load('U-a', WIDE);

        expect(loaded.head).toMatchObject({ version: 2, machineVersion: 1, busy: true, lastSeq: 4 });
        expect(loaded.head?.snapshot).toEqual({
          status: 'active',
          value: 'idle',
          context: {
            source: { kind: 'user', id: 'U-a' },
            pending: [],
            recentEventIds: [takenIn.eventId, queued.eventId],
          },
        });
        expect(loaded.history).toEqual(records(1, history));
        expect(await store.profiles('U-a')).toEqual([{ userId: 'Ua', displayName: 'Aiko', fetchedAt: 7 }]);
        expect(await sortKeys(tableName, 'U-a')).toEqual([
          'H#000000000004',
          'HEAD',
          expect.stringMatching(/^INBOX#/),
          expect.stringMatching(/^INBOX#/),
          'P#Ua',
        ]);
        expect(await store.sourcesWithWork()).toEqual(['U-a']);
        // The queued message is back in the inbox, ahead; the one taken in already is gone.
        expect((await store.inbox('U-a')).map(({ item }) => item)).toEqual([queued, waiting]);

        // The migrated source carries on: version 2, seqs above 4.
        const ownership = await owned(store);
        expect(
          await store.checkpoint(
            checkpointOf(ownership, { expectedVersion: 2, appended: records(5, [user('next')]) }),
          ),
        ).toBe(3);
        expect((await store.load('U-a', WIDE)).history.map(({ seq }) => seq)).toEqual([1, 2, 3, 4, 5]);
      });

      it('migrates a source acquired before its first load, keeping its owner and fence', async () => {
        const { tableName, store } = await freshStore();
        await putFirstWaveConversation(local.client, tableName, { ...legacy(1), busy: false });
        const ownership = await owned(store);

        const loaded = await store.load('U-a', WIDE);

        expect(loaded.head).toMatchObject({
          version: 1,
          fence: ownership.fence,
          owner: { ownerId: 'alice-owner' },
          lastSeq: 4,
        });
        expect(loaded.history).toEqual(records(1, history));
        expect(await store.checkpoint(checkpointOf(ownership, { expectedVersion: 1 }))).toBe(2);
      });
    });

    /** `first`, answered, then "and then?", answered; the source they went to. */
    async function askTwice(host: ActorHost, delivery: RecordingDelivery, first: string): Promise<Source> {
      const source = userSourceNumber(1);
      await host.accept([messageFor(source, first)]);
      await until(() => delivery.texts.length === 1, 10_000);
      await host.accept([messageFor(source, 'and then?')]);
      await until(() => delivery.texts.length === 2, 10_000);
      await host.whenSettled();
      return source;
    }

    /** A host on a new table whose `fetch_page` tool answers `resultBytes` of random text. */
    async function pageReadingHost(
      model: ScriptedModel,
      resultBytes: number,
      options: { maxItemBytes?: number; sideEffects?: boolean; runs?: { count: number } } = {},
    ) {
      const fetchPage = defineTool({
        name: 'fetch_page',
        description: 'Fetches a page.',
        category: 'web',
        optional: false,
        sideEffects: options.sideEffects ?? false,
        parameters: { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: false },
        response: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      }).implement(() => {
        if (options.runs) options.runs.count++;
        return Promise.resolve({ forLLM: { text: randomBase64(resultBytes) } });
      });
      const { lines, logger } = recordingLogger('warn');
      const store = new DynamoDbSourceStore({
        client: local.client,
        tableName: await local.createTable(),
        ...(options.maxItemBytes !== undefined && { maxItemBytes: options.maxItemBytes }),
      });
      return { ...createTestHost({ model, tools: [fetchPage], store, logger }), lines };
    }

    it("a tool's result too large for the head is the call's error, not a checkpoint retried forever", async () => {
      // Random text deflates little: 500 KB of it would make the turn's head over 350 KB.
      const model = new ScriptedModel(
        [
          callTools(['fetch_page', {}]),
          (request: ModelRequest) => {
            const results = request.history.flatMap((entry) => (entry.role === 'tool' ? entry.results : []));
            return callReply(`page: ${JSON.stringify(results.at(-1)?.response)}`);
          },
          callReply('and the next one'),
        ],
        { repeatLast: true },
      );
      const { host, delivery, store, lines } = await pageReadingHost(model, 500 * 1024);
      const source = await askTwice(host, delivery, 'read that page');

      expect(delivery.texts).toEqual([
        'page: {"error":"tool \\"fetch_page\\" returned 501 KB, more than the 32 KB a tool result may hold"}',
        'and the next one',
      ]);
      expect(lines.filter((line) => line.message === 'source step failed; retrying')).toEqual([]);
      expect(await sourceAtRest(store, source.id)).toBe(true);
      await host.shutdown();
    });

    it("one step's results too large for a stored entry: the rest are the calls' errors, not a checkpoint retried forever", async () => {
      // Sixteen results, each under the 32 KB a result may hold, of random text that deflates
      // little: together (480 KB) they would make the step's history entry too large for an item.
      const answered: JsonObject[][] = [];
      const model = new ScriptedModel(
        [
          callTools(...Array.from({ length: 16 }, (_, n): [string, JsonObject] => ['fetch_page', { n }])),
          (request: ModelRequest) => {
            const tool = request.history.at(-1);
            answered.push(tool?.role === 'tool' ? tool.results.map((result) => result.response) : []);
            return callReply('read them');
          },
          callReply('and the next one'),
        ],
        { repeatLast: true },
      );
      const { host, delivery, store, lines } = await pageReadingHost(model, 30 * 1024);
      const source = await askTwice(host, delivery, 'read those pages');

      expect(delivery.texts).toEqual(['read them', 'and the next one']);
      const [results = []] = answered;
      const kept = results.filter((response) => typeof response.text === 'string');
      const refused = results.filter((response) => typeof response.error === 'string');
      expect(results).toHaveLength(16);
      expect(kept.length).toBe(8);
      expect(refused.length).toBe(8);
      expect(refused[0]!.error).toMatch(
        /^tool "fetch_page" returned 31 KB, more than this step's results may still hold \(256 KB in all, \d+ KB taken\): call it again in the next step$/,
      );
      expect(lines.filter((line) => line.message === 'source step failed; retrying')).toEqual([]);
      expect(
        lines.filter((line) => line.message === 'tool result not kept: the step holds too much already'),
      ).toHaveLength(8);
      expect(await sourceAtRest(store, source.id)).toBe(true);
      await host.shutdown();
    });

    // Items of at most 20 KB: a 30 KB result is within every tool limit, yet the history entry
    // holding it can never be written. Before, the same write was retried forever.
    it.each([
      { case: 'nothing of the turn durable yet', sideEffects: false },
      { case: "the tool's intent durable", sideEffects: true },
    ])(
      'a checkpoint that can never be stored sets its turn aside with a notice; the chat goes on ($case)',
      async ({ sideEffects }) => {
        const model = new ScriptedModel(
          [
            (request: ModelRequest) => {
              const last = request.history.at(-1);
              if (last?.role === 'user')
                return last.text === 'and then?'
                  ? callReply('and the next one')
                  : callTools(['fetch_page', {}]);
              return callReply('read it');
            },
          ],
          { repeatLast: true },
        );
        const runs = { count: 0 };
        const { host, delivery, store, lines } = await pageReadingHost(model, 30 * 1024, {
          maxItemBytes: 20 * 1024,
          sideEffects,
          runs,
        });
        const source = await askTwice(host, delivery, 'read that page');

        expect(delivery.texts).toEqual([defaults.host.quarantineNotice, 'and the next one']);
        expect(runs.count).toBe(1);
        // The page, then `reply`, whose intent cannot be stored: neither runs again.
        expect(model.calls).toHaveLength(3);
        expect(
          lines.filter((line) => line.message === 'checkpoint can never be stored; setting the turn aside'),
        ).toEqual([
          expect.objectContaining({
            error: expect.objectContaining({ name: 'ItemTooLargeError' }) as unknown,
          }),
        ]);
        expect(lines.filter((line) => line.message === 'source step failed; retrying')).toEqual([]);
        expect(await sourceAtRest(store, source.id)).toBe(true);
        await host.shutdown();
      },
    );

    it('two hosts on one table, each with its own client: one owner at a time, every message once and in order', async () => {
      const tableName = await local.createTable();
      // A lease far longer than a write can take, even on a loaded machine: an owner that stays
      // alive keeps its source (a lapsed lease would let the other resume its delivery).
      const hostOnTable = () =>
        createTestHost({
          model: echoModel(),
          store: new DynamoDbSourceStore({ client: local.createClient(), tableName }),
          host: { leaseMs: 10_000, sideEffectTimeoutMs: 1_000 },
        });
      const [a, b] = [hostOnTable(), hostOnTable()];
      const source = userSourceNumber(1);
      const base = Date.now();
      const messages = Array.from({ length: 6 }, (_, index) => ({
        ...messageFor(source, `m${index}`),
        timestamp: base + index,
      }));

      for (const [index, item] of messages.entries()) await (index % 2 ? a : b).host.accept([item]);
      await until(() => sourceAtRest(a.store, source.id));
      await Promise.all([a.host.whenSettled(), b.host.whenSettled()]);
      await Promise.all([a.host.shutdown(), b.host.shutdown()]);

      const history = await storedHistory(a.store, source.id);
      expect(userTexts(history)).toEqual(messages.map((item) => item.text));
      expect([...a.delivery.texts, ...b.delivery.texts]).toHaveLength(6);
    });

    it('npm run db:create creates the table with its work index, stream and TTL, and can run again', async () => {
      const env = {
        PATH: process.env.PATH,
        DYNAMODB_ENDPOINT: local.endpoint,
        DYNAMODB_TABLE: 'kaiwa-script',
      };
      const run = () =>
        promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/create-table.ts'], { env });

      expect((await run()).stdout).toContain('table kaiwa-script created');
      expect((await run()).stdout).toContain('table kaiwa-script already exists');

      const { Table } = await local.client.send(new DescribeTableCommand({ TableName: 'kaiwa-script' }));
      expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['work-index']);
      expect(Table?.StreamSpecification).toMatchObject({ StreamEnabled: true, StreamViewType: 'KEYS_ONLY' });
      const ttl = await local.client.send(new DescribeTimeToLiveCommand({ TableName: 'kaiwa-script' }));
      expect(ttl.TimeToLiveDescription).toMatchObject({
        AttributeName: 'expiresAt',
        TimeToLiveStatus: 'ENABLED',
      });
    });
  });
});

/** Replies with the text of the turn's last user message. */
const echoModel = () =>
  new ScriptedModel(
    [
      (request: ModelRequest) => {
        const entry = request.history.findLast((item) => item.role === 'user');
        return callReply(`re: ${entry?.role === 'user' ? entry.text : ''}`);
      },
    ],
    { repeatLast: true },
  );
