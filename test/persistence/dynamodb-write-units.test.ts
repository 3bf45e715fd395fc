import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  PutItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient, DynamoDbSourceStore } from '../../src/persistence/index.js';
import { startCapacityProxy, type CapacityProxy } from '../support/dynamodb-capacity-proxy.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { lineUserId, replyTurn } from '../support/reply-turn.js';
import { owner } from './source-store-fixtures.js';

// The write units of a simple reply turn on DynamoDB, counted by a proxy that bills them as
// DynamoDB does (test/support/dynamodb-capacity-proxy.ts). SPEC's target: at most 20 WCU per
// turn with `accept`, and within 2 WCU of each other at turns 1, 40 and 200. The figures are in
// docs/persistence.md ("WCU per turn"); run with KAIWA_PRINT_UNITS=1 to print them.

interface TurnUnits {
  readonly turn: number;
  readonly accept: number;
  readonly intent: number;
  readonly sent: number;
  /** `accept` and the two checkpoints: the figure SPEC targets. */
  readonly turnTotal: number;
  /** Of those, the work index's entries written or removed. */
  readonly indexUnits: number;
  /** Once per drain (a drain may take several turns): taking and giving up ownership. */
  readonly acquire: number;
  readonly release: number;
}

let local: DynamoDbLocal;
let proxy: CapacityProxy;
let metered: DynamoDBClient;

describe.skipIf(!dynamoDbLocalRequired())('DynamoDB write units, counted as DynamoDB bills them', () => {
  beforeAll(async () => {
    local = await startDynamoDbLocal();
    proxy = await startCapacityProxy({ upstream: local.endpoint, reader: local.createClient() });
    metered = createDynamoDbClient({ region: 'us-east-1', endpoint: proxy.endpoint, maxAttempts: 1 }, {});
  });
  afterAll(async () => {
    metered?.destroy();
    await proxy?.close();
    await local?.stop();
  });

  describe('the counting proxy', () => {
    const key = (sk: string) => ({ pk: { S: 'U1' }, sk: { S: sk } });
    const bytes = (size: number) => ({ S: 'x'.repeat(size) });

    it('bills a write per started KB of the larger of the old and the new item, at least one', async () => {
      const TableName = await local.createTable();
      const units = async (send: () => Promise<unknown>) => {
        proxy.reset();
        await send();
        return proxy.writeUnits();
      };

      expect(
        await units(() =>
          metered.send(new PutItemCommand({ TableName, Item: { ...key('a'), v: bytes(10) } })),
        ),
      ).toBe(1);
      // pk, sk, v: 2 + 3 + 1 bytes of names and values beside the 1,500 bytes.
      expect(
        await units(() =>
          metered.send(new PutItemCommand({ TableName, Item: { ...key('a'), v: bytes(1_500) } })),
        ),
      ).toBe(2);
      expect(
        await units(() =>
          metered.send(
            new UpdateItemCommand({
              TableName,
              Key: key('a'),
              UpdateExpression: 'SET v = :v',
              ExpressionAttributeValues: { ':v': bytes(10) },
            }),
          ),
        ),
      ).toBe(2);
      expect(
        await units(() =>
          metered.send(new PutItemCommand({ TableName, Item: { ...key('a'), v: bytes(2_100) } })),
        ),
      ).toBe(3);
      expect(await units(() => metered.send(new DeleteItemCommand({ TableName, Key: key('a') })))).toBe(3);
      expect(await units(() => metered.send(new DeleteItemCommand({ TableName, Key: key('absent') })))).toBe(
        1,
      );
    });

    it('bills twice in a transaction, batches like single writes, and each work index entry once', async () => {
      const TableName = await local.createTable();
      proxy.reset();
      await metered.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName, Item: { ...key('a'), v: bytes(1_500) } } },
            { Put: { TableName, Item: { ...key('b'), work: { S: 'WORK#1' } } } },
          ],
        }),
      );
      expect(proxy.requests.at(-1)).toMatchObject({ writeUnits: 2 * 2 + 2 * 1 + 1, indexUnits: 1 });

      await metered.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [TableName]: [{ DeleteRequest: { Key: key('a') } }, { DeleteRequest: { Key: key('b') } }],
          },
        }),
      );
      expect(proxy.requests.at(-1)).toMatchObject({ writeUnits: 2 + 1 + 1, indexUnits: 1 });
    });
  });

  it('a simple reply turn writes at most 20 WCU with accept, the same at turns 1, 40 and 200', async () => {
    const { rows, sourceId, tableName } = await measureTurns({
      lastTurn: 200,
      measured: [1, 2, 40, 199, 200],
    });

    proxy.reset();
    const loaded = await new DynamoDbSourceStore({ client: metered, tableName }).load(sourceId, {
      maxEntries: 200,
      maxBytes: 128 * 1024,
    });
    if (process.env.KAIWA_PRINT_UNITS) {
      console.table([
        ...rows,
        { turn: 'load', readUnits: proxy.readUnits(), entries: loaded.history.length },
      ]);
    }

    expect(rows.map((row) => row.turn)).toEqual([1, 2, 40, 199, 200]);
    for (const row of rows) expect(row.turnTotal).toBeLessThanOrEqual(20);
    const totals = rows.map((row) => row.turnTotal);
    expect(Math.max(...totals) - Math.min(...totals)).toBeLessThanOrEqual(2);
  }, 300_000);

  it('without the work index (the Lambda store) a turn writes 4 WCU less: no index entry is written or removed', async () => {
    const withIndex = await measureTurns({ lastTurn: 40, measured: [1, 40] });
    const lambda = await measureTurns({ lastTurn: 40, measured: [1, 40], workIndex: false });
    if (process.env.KAIWA_PRINT_UNITS) console.table(lambda.rows);

    for (const [index, row] of lambda.rows.entries()) {
      const indexed = withIndex.rows[index]!;
      expect(row.indexUnits).toBe(0);
      expect(indexed.indexUnits).toBe(4);
      expect(row.turnTotal).toBe(indexed.turnTotal - 4);
      expect(row.turnTotal).toBeLessThanOrEqual(13);
    }
    // What the Lambda store writes has no `work` key: nothing for an index to list.
    const scanned = await local.client.send(new ScanCommand({ TableName: lambda.tableName }));
    expect(scanned.Items?.some((item) => item.work !== undefined)).toBe(false);
    await expect(
      new DynamoDbSourceStore({
        client: local.client,
        tableName: lambda.tableName,
        workIndex: false,
      }).sourcesWithWork(),
    ).rejects.toThrow(/no work index/);
  }, 300_000);

  /**
   * Plays `lastTurn` simple reply turns on one source; the `measured` ones go through the proxy
   * (the others straight to DynamoDB Local, faster) and give a row each.
   */
  async function measureTurns(options: {
    lastTurn: number;
    measured: readonly number[];
    workIndex?: boolean;
  }): Promise<{ rows: TurnUnits[]; sourceId: string; tableName: string }> {
    const tableName = await local.createTable();
    const storeOptions = {
      tableName,
      conversationTtlMs: 30 * 86_400_000,
      ...(options.workIndex !== undefined && { workIndex: options.workIndex }),
    };
    const direct = new DynamoDbSourceStore({ client: local.client, ...storeOptions });
    const counted = new DynamoDbSourceStore({ client: metered, ...storeOptions });
    const sourceId = lineUserId();
    const measuredTurns = new Set(options.measured);
    const rows: TurnUnits[] = [];
    let version = 0;

    for (let turn = 1; turn <= options.lastTurn; turn++) {
      const store = measuredTurns.has(turn) ? counted : direct;
      const { message, intent, sent } = replyTurn({
        sourceId,
        turn,
        firstSeq: 3 * turn - 2,
        signatureBytes: 1024,
      });
      const units = async (step: () => Promise<unknown>) => {
        const before = proxy.writeUnits();
        await step();
        return proxy.writeUnits() - before;
      };
      proxy.reset();
      const accept = await units(() => store.accept(message));
      let ownership = undefined as Awaited<ReturnType<typeof store.acquire>>;
      const acquire = await units(
        async () =>
          (ownership = await store.acquire(sourceId, owner('host', { now: Date.now }), () => false)),
      );
      if (ownership === undefined) throw new Error('not acquired');
      const [waiting] = await store.inbox(sourceId);
      const base = { ownership, machineVersion: 3, removedSeqs: [] };
      const intentUnits = await units(
        async () =>
          (version = await store.checkpoint({
            ...base,
            expectedVersion: version,
            snapshot: intent.snapshot,
            busy: true,
            appended: intent.records,
            consumedKeys: [waiting!.key],
          })),
      );
      const sentUnits = await units(
        async () =>
          (version = await store.checkpoint({
            ...base,
            expectedVersion: version,
            snapshot: sent.snapshot,
            busy: false,
            appended: sent.records,
            consumedKeys: [],
          })),
      );
      const indexUnits = proxy.requests.reduce((total, request) => total + request.indexUnits, 0);
      const release = await units(() => store.release(ownership!));
      const turnTotal = accept + intentUnits + sentUnits;
      if (measuredTurns.has(turn))
        rows.push({
          turn,
          accept,
          intent: intentUnits,
          sent: sentUnits,
          turnTotal,
          indexUnits,
          acquire,
          release,
        });
    }
    return { rows, sourceId, tableName };
  }
});
