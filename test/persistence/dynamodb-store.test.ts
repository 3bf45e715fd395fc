import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundMessage, JsonObject } from '../../src/domain/index.js';
import { ScriptedModel, callReply, type ModelRequest } from '../../src/model/index.js';
import {
  DynamoDbStore,
  ItemTooLargeError,
  SnapshotSourceStore,
  VersionConflictError,
  type DynamoDbStoreOptions,
  type SaveRequest,
} from '../../src/persistence/index.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import {
  createTestHost,
  messageFor,
  sourceAtRest,
  storedHistory,
  userSourceNumber,
  userTexts,
} from '../support/host-harness.js';
import { conversationStoreConformance } from './conversation-store.conformance.js';
import { until } from '../support/until.js';

let local: DynamoDbLocal;

async function freshStore(options: Partial<DynamoDbStoreOptions> = {}) {
  const tableName = await local.createTable();
  return { tableName, store: new DynamoDbStore({ client: local.client, tableName, ...options }) };
}

function message(sourceId: string, eventId: string, timestamp: number, text = 'hi'): InboundMessage {
  return { eventId, source: { kind: 'user', id: sourceId }, text, timestamp };
}

function saveRequest(overrides: Partial<SaveRequest> = {}): SaveRequest {
  return {
    sourceId: 'U1',
    expectedVersion: 0,
    machineVersion: 1,
    snapshot: { value: 'idle' },
    busy: false,
    consumedEventIds: [],
    ...overrides,
  };
}

// Without Java a developer's run skips these; under CI=true they run and fail instead.
describe.skipIf(!dynamoDbLocalRequired())('DynamoDB store on DynamoDB Local', () => {
  beforeAll(async () => {
    local = await startDynamoDbLocal();
  });
  afterAll(async () => {
    await local?.stop();
  });

  conversationStoreConformance('dynamodb', async () => (await freshStore()).store);

  describe('dynamodb store specifics', () => {
    it('keeps maxInbox messages of a source and counts the rest into one overflow item (the Lambda webhook)', async () => {
      const { store } = await freshStore({ maxInbox: 10 });
      const sent = Array.from({ length: 40 }, (_, index) =>
        message('U1', `e${index}`, 1_000 + index, `m${index}`),
      );
      for (const item of sent) expect(await store.accept(item)).toBe(true);
      expect(await store.accept(sent[39]!)).toBe(false);

      const waiting = await store.inbox('U1');
      expect(waiting).toHaveLength(11);
      expect(waiting.slice(0, 10)).toEqual(sent.slice(0, 10));
      expect(waiting[10]).toMatchObject({
        eventId: 'e10',
        timestamp: 1_039,
        overflow: { count: 30, addressed: 30 },
      });
      // Consumed by the worker's save like any item; then messages are kept again.
      await store.save(saveRequest({ consumedEventIds: waiting.map(({ eventId }) => eventId) }));
      expect(await store.accept(message('U1', 'later', 2_000))).toBe(true);
      expect((await store.inbox('U1')).map(({ eventId }) => eventId)).toEqual(['later']);
    });

    it('gives a claim a TTL attribute, and accepts the event again once the claim expired', async () => {
      const now = 1_700_000_000_000;
      const { tableName, store } = await freshStore({ claimTtlMs: 60_000, now: () => now });
      const item = message('U1', 'event-1', now);

      expect(await store.accept(item)).toBe(true);
      const claim = await local.client.send(
        new GetItemCommand({ TableName: tableName, Key: { pk: { S: 'CLAIM#event-1' }, sk: { S: 'CLAIM' } } }),
      );
      expect(claim.Item?.expiresAt).toEqual({ N: String((now + 60_000) / 1000) });
      expect(claim.Item?.pk).toEqual({ S: 'CLAIM#event-1' });

      const later = new DynamoDbStore({
        client: local.client,
        tableName,
        claimTtlMs: 60_000,
        now: () => now + 61_000,
      });
      expect(await store.accept(item)).toBe(false);
      expect(await later.accept(item)).toBe(true);
    });

    it('writes no inbox item when the claim fails: the two writes are one transaction', async () => {
      const { tableName, store } = await freshStore();
      const first = message('U1', 'same-event', 1, 'first delivery');
      // The same event id with another body: a separate inbox item would get its own key.
      const redelivery = message('U1', 'same-event', 2, 'redelivery');

      await store.accept(first);
      expect(await store.accept(redelivery)).toBe(false);

      const items = await local.client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'U1' } },
        }),
      );
      expect(items.Count).toBe(1);
      expect(await store.inbox('U1')).toEqual([first]);
    });

    it("writes no claim when the inbox write fails, so LINE's redelivery is accepted", async () => {
      const { store } = await freshStore();
      // Over DynamoDB's 400 KB item limit: the inbox Put fails, and the claim with it.
      const oversized = message('U1', 'event-x', 1, 'x'.repeat(410 * 1024));

      await expect(store.accept(oversized)).rejects.toThrow();

      const redelivery = message('U1', 'event-x', 1, 'a normal message');
      expect(await store.accept(redelivery)).toBe(true);
      expect(await store.inbox('U1')).toEqual([redelivery]);
    });

    it("orders a source's inbox by LINE's event timestamp, whatever the arrival order", async () => {
      const { store } = await freshStore();
      const later = message('U1', 'b', 2_000);
      const earlier = message('U1', 'a', 1_000);

      await store.accept(later);
      await store.accept(earlier);

      expect(await store.inbox('U1')).toEqual([earlier, later]);
    });

    it('sets a TTL on the conversation item when configured, and none when not', async () => {
      const now = 1_700_000_000_000;
      const { tableName, store } = await freshStore({ conversationTtlMs: 30 * 86_400_000, now: () => now });
      const forever = new DynamoDbStore({ client: local.client, tableName, now: () => now });
      await store.save(saveRequest({ sourceId: 'U-expiring' }));
      await forever.save(saveRequest({ sourceId: 'U-forever' }));

      const read = (sourceId: string) =>
        local.client.send(
          new GetItemCommand({
            TableName: tableName,
            Key: { pk: { S: sourceId }, sk: { S: 'CONVERSATION' } },
          }),
        );
      expect((await read('U-expiring')).Item?.expiresAt).toEqual({ N: String(now / 1000 + 30 * 86_400) });
      expect((await read('U-forever')).Item?.expiresAt).toBeUndefined();
    });

    it('refuses an item over 350 KB before writing it, and writes one just below', async () => {
      const { store } = await freshStore();
      const snapshot = (kilobytes: number): JsonObject => ({
        context: { note: 'x'.repeat(kilobytes * 1024) },
      });

      const refused = store.save(saveRequest({ snapshot: snapshot(351) }));
      await expect(refused).rejects.toBeInstanceOf(ItemTooLargeError);
      await expect(refused).rejects.toMatchObject({ sourceId: 'U1', limitBytes: 350 * 1024 });
      expect(await store.load('U1')).toBeUndefined();

      expect(await store.save(saveRequest({ snapshot: snapshot(349) }))).toBe(1);
      expect((await store.load('U1'))?.snapshot).toEqual(snapshot(349));
    });

    it('stores snapshots that a DynamoDB map could not hold: deep nesting, empty strings, big numbers', async () => {
      const { store } = await freshStore();
      let deep: JsonObject = { leaf: '' };
      for (let level = 0; level < 40; level++) deep = { level, next: deep };
      const snapshot: JsonObject = { deep, precise: 0.1 + 0.2, big: Number.MAX_SAFE_INTEGER, empty: [] };

      await store.save(saveRequest({ snapshot }));

      expect((await store.load('U1'))?.snapshot).toEqual(snapshot);
    });

    it('consumes more inbox messages than one transaction holds (100 actions)', async () => {
      // More messages wait than the default inbox cap keeps.
      const { store } = await freshStore({ maxInbox: 1000 });
      const messages = Array.from({ length: 150 }, (_, index) => message('U1', `e${index}`, 1_000 + index));
      for (const item of messages) await store.accept(item);
      const kept = message('U1', 'kept', 5_000);
      await store.accept(kept);

      await store.save(saveRequest({ consumedEventIds: messages.map((item) => item.eventId), busy: true }));

      expect(await store.inbox('U1')).toEqual([kept]);
    });

    it('lists sources with work through the sparse index and drops them once consumed and idle', async () => {
      const { store } = await freshStore();
      const waiting = message('U1', 'e1', 1);
      await store.accept(waiting);
      expect(await store.sourcesWithWork()).toEqual(['U1']);

      await store.save(saveRequest({ busy: true, consumedEventIds: ['e1'] }));
      expect(await store.sourcesWithWork()).toEqual(['U1']);

      await store.save(saveRequest({ expectedVersion: 1, busy: false }));
      expect(await store.sourcesWithWork()).toEqual([]);
    });

    it('reports the version that won in a conflict (from the failed condition, no extra read)', async () => {
      const { store } = await freshStore();
      await store.accept(message('U1', 'e1', 1));
      await store.save(saveRequest());
      await store.save(saveRequest({ expectedVersion: 1 }));

      const losing = store.save(saveRequest({ expectedVersion: 1, consumedEventIds: ['e1'] }));

      await expect(losing).rejects.toBeInstanceOf(VersionConflictError);
      await expect(losing).rejects.toMatchObject({ expectedVersion: 1, actualVersion: 2 });
      expect((await store.inbox('U1')).map((item) => item.eventId)).toEqual(['e1']);
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

    it('two hosts on one source through the source store port, each with its own client: one owner at a time, every message once and in order', async () => {
      const tableName = await local.createTable();
      // A lease far longer than a write can take, even on a loaded machine: an owner that stays
      // alive keeps its source (a lapsed lease would let the other resume its delivery).
      const storeFor = () =>
        new SnapshotSourceStore(new DynamoDbStore({ client: local.createClient(), tableName }));
      const a = createTestHost({
        model: echoModel(),
        store: storeFor(),
        host: { leaseMs: 10_000, sideEffectTimeoutMs: 1_000 },
      });
      const b = createTestHost({
        model: echoModel(),
        store: storeFor(),
        host: { leaseMs: 10_000, sideEffectTimeoutMs: 1_000 },
      });
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
