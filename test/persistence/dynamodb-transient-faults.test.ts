import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Source, UserEntry } from '../../src/domain/index.js';
import { noUsage, type ModelPort } from '../../src/model/index.js';
import { createDynamoDbClient, DynamoDbSourceStore } from '../../src/persistence/index.js';
import { startFaultProxy, type DynamoDbFault, type FaultProxy } from '../support/dynamodb-fault-proxy.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { createTestHost, messageFor, sourceAtRest, userSourceNumber } from '../support/host-harness.js';
import { recordingLogger } from '../support/recording-logger.js';

// DynamoDB under load cancels a transaction when another one holds one of its items
// (`TransactionConflict`) and throttles requests; DynamoDB Local, serving one test at a time,
// does neither. A proxy answers some requests with those errors as DynamoDB words them, and the
// turns must go through as if nothing happened: sent again by the store (a cancelled transaction
// — the SDK never retries one) or by the SDK (throttling), never surfacing as a failed step.

/** Answers the last user message through `reply`, at once. */
const echoModel: ModelPort = {
  name: 'echo',
  generate: (request) => {
    const last = request.history.findLast((entry): entry is UserEntry => entry.role === 'user');
    return Promise.resolve({
      calls: [{ name: 'reply', args: { message: `re: ${last?.text ?? ''}` } }],
      usage: noUsage,
    });
  },
};

let local: DynamoDbLocal;
let proxy: FaultProxy | undefined;
let client: DynamoDBClient | undefined;

describe.skipIf(!dynamoDbLocalRequired())('DynamoDB: transient cancellations and throttling', () => {
  beforeAll(async () => {
    local = await startDynamoDbLocal();
  });
  afterEach(async () => {
    client?.destroy();
    await proxy?.close();
  });
  afterAll(() => local?.stop());

  /** Three messages to each of three users, one at a time, through a store behind the proxy. */
  async function converseThroughProxy(fault: (operation: string) => DynamoDbFault | undefined) {
    proxy = await startFaultProxy({ upstream: local.endpoint, fault });
    client = createDynamoDbClient({ region: 'us-east-1', endpoint: proxy.endpoint }, {});
    const store = new DynamoDbSourceStore({ client, tableName: await local.createTable() });
    const { lines, logger } = recordingLogger('warn');
    const { host, delivery } = createTestHost({ model: echoModel, store, logger });
    const sources: Source[] = [0, 1, 2].map(userSourceNumber);
    for (const turn of [1, 2, 3]) {
      for (const source of sources) await host.accept([messageFor(source, `${source.id} m${turn}`)]);
      await host.whenSettled();
    }
    await host.shutdown(1_000);
    const answers = (source: Source) =>
      delivery.requests
        .filter((request) => request.source.id === source.id)
        .flatMap((request) => request.texts);
    return { store, lines, sources, answers, requests: proxy.requests };
  }

  it('sends again a transaction cancelled because another held an item: every turn answered once, no step failed', async () => {
    // Every transaction's first attempt is cancelled (the head "held by another transaction").
    let cancelNext = true;
    const { store, lines, sources, answers, requests } = await converseThroughProxy((operation) => {
      if (operation !== 'TransactWriteItems') return undefined;
      cancelNext = !cancelNext;
      return cancelNext ? undefined : 'transaction-conflict';
    });

    for (const source of sources)
      expect(answers(source)).toEqual([1, 2, 3].map((turn) => `re: ${source.id} m${turn}`));
    expect(lines).toEqual([]);
    const transactions = requests.filter((request) => request.operation === 'TransactWriteItems');
    // Each was cancelled once, then went through: at least both checkpoints of every turn.
    expect(transactions.filter((request) => request.faulted).length).toBeGreaterThanOrEqual(9 * 2);
    expect(transactions.filter((request) => !request.faulted).length).toBe(
      transactions.filter((request) => request.faulted).length,
    );
    for (const source of sources) expect(await sourceAtRest(store, source.id)).toBe(true);
  });

  it('lets the SDK retry throttled requests: every turn answered once, no step failed', async () => {
    // One request in five throttled, whatever it is: reads, writes and transactions alike.
    let count = 0;
    const { store, lines, sources, answers, requests } = await converseThroughProxy(() =>
      ++count % 5 === 0 ? 'throttling' : undefined,
    );

    for (const source of sources)
      expect(answers(source)).toEqual([1, 2, 3].map((turn) => `re: ${source.id} m${turn}`));
    expect(lines).toEqual([]);
    const throttled = new Set(
      requests.filter((request) => request.faulted).map((request) => request.operation),
    );
    expect([...throttled].sort()).toEqual(expect.arrayContaining(['GetItem', 'TransactWriteItems']));
    for (const source of sources) expect(await sourceAtRest(store, source.id)).toBe(true);
  });

  it('holds no other request back after a throttled one: only that request waits for its retry', async () => {
    // The SDK's adaptive mode (kaiwa's choice until 2026-11) rate-limited the whole client after
    // one throttle, from the rate it had measured so far: in a young process (a Lambda container,
    // a restart) the next calls waited 0.2–0.6 s each, and still 24–51 ms 20–35 calls on (8 ms before).
    let count = 0;
    proxy = await startFaultProxy({
      upstream: local.endpoint,
      fault: (operation) => (operation === 'GetItem' && ++count === 1 ? 'throttling' : undefined),
    });
    client = createDynamoDbClient({ region: 'us-east-1', endpoint: proxy.endpoint }, {});
    const store = new DynamoDbSourceStore({ client, tableName: await local.createTable() });
    const window = { maxEntries: 10, maxBytes: 10_000 };

    await store.load(userSourceNumber(0).id, window);
    expect(proxy.requests.filter((request) => request.faulted)).toHaveLength(1);
    const before = proxy.requests.length;
    // Ten sources loaded at once, as ten webhooks or turns would.
    await Promise.all([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => store.load(userSourceNumber(n).id, window)));

    const arrivals = proxy.requests.slice(before).map((request) => request.at);
    expect(arrivals.length).toBeGreaterThanOrEqual(10);
    // All sent together (adaptive mode spread them over seconds, one per token).
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(1_000);
  });
});
