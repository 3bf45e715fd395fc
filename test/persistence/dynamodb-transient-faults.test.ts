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
  async function converseThroughProxy(
    fault: (operation: string, input: Record<string, unknown>) => DynamoDbFault | undefined,
  ) {
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
    // Every transaction's first attempt is cancelled (the head "held by another transaction");
    // an attempt is known by its actions, which a retry sends again unchanged. The three users'
    // turns run side by side, so attempts of different transactions interleave.
    const firstAttempt = firstTimeSeen();
    const { store, lines, sources, answers, requests } = await converseThroughProxy((operation, input) =>
      operation === 'TransactWriteItems' && firstAttempt(input.TransactItems)
        ? 'transaction-conflict'
        : undefined,
    );

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
    // Of each operation — reads, writes and transactions alike — the first request and every
    // third after it throttled, on its first attempt only (the SDK sends the same body again),
    // so none can run out of retries whatever the order the three users' turns interleave in.
    const firstAttempt = firstTimeSeen();
    const seen = new Map<string, number>();
    const { store, lines, sources, answers, requests } = await converseThroughProxy((operation, input) => {
      if (!firstAttempt(input)) return undefined;
      const count = seen.get(operation) ?? 0;
      seen.set(operation, count + 1);
      return count % 3 === 0 ? 'throttling' : undefined;
    });

    for (const source of sources)
      expect(answers(source)).toEqual([1, 2, 3].map((turn) => `re: ${source.id} m${turn}`));
    expect(lines).toEqual([]);
    const throttled = new Set(
      requests.filter((request) => request.faulted).map((request) => request.operation),
    );
    expect([...throttled].sort()).toEqual([...seen.keys()].sort());
    expect(throttled).toContain('TransactWriteItems');
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

/** Whether a value is seen for the first time (by its JSON). */
function firstTimeSeen(): (value: unknown) => boolean {
  const seen = new Set<string>();
  return (value) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}
