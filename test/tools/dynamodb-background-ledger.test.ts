import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ownerIdentity } from '../../src/actors/index.js';
import { DynamoDbBackgroundLedger } from '../../src/composition/index.js';
import { DynamoDbSourceStore } from '../../src/persistence/index.js';
import { INTERRUPTED_OUTCOME, type BackgroundCall } from '../../src/tools/index.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { startKaiwaWithFakeLine } from '../support/kaiwa-under-test.js';
import { recordingLogger } from '../support/recording-logger.js';
import { reportModel } from '../support/report-tool.js';
import { killMidBackgroundWork } from './support/kill-mid-background-work.js';
import { userId } from '../support/webhook-fixtures.js';

// The tools' background work noted in the DynamoDB table while it runs (`npm start` on DynamoDB,
// the Lambda worker): a process that dies leaves it there, and another reports it.

const call: BackgroundCall = {
  toolName: 'render_report',
  source: { kind: 'user', id: 'U' + '6'.repeat(32) },
  idempotencyKey: 'turn-1:call-1',
};

describe.skipIf(!dynamoDbLocalRequired())('background work noted in DynamoDB', () => {
  let dynamodb: DynamoDbLocal;
  const ledgers: DynamoDbBackgroundLedger[] = [];
  beforeAll(async () => {
    dynamodb = await startDynamoDbLocal();
  });
  afterAll(async () => {
    for (const ledger of ledgers) ledger.close();
    await dynamodb?.stop();
  });

  function ledgerOn(
    table: string,
    options: { ownerId: string; now?: () => number; isOwnerGone?: () => boolean; leaseMs?: number },
  ) {
    const { lines, logger } = recordingLogger();
    const ledger = new DynamoDbBackgroundLedger({
      client: dynamodb.client,
      tableName: table,
      owner: ownerIdentity(options.leaseMs ?? 30_000, options.ownerId),
      isOwnerGone: options.isOwnerGone ?? (() => false),
      clock: { now: options.now ?? (() => Date.now()) },
      logger,
    });
    ledgers.push(ledger);
    return { ledger, lines };
  }

  it("another process finds a piece left only once its owner's lease ran out, or its owner is gone", async () => {
    const table = await dynamodb.createTable();
    const { ledger: running } = ledgerOn(table, { ownerId: 'a' });
    await running.note(call);

    expect(await running.leftBehind()).toEqual([]);
    expect(await ledgerOn(table, { ownerId: 'b' }).ledger.leftBehind()).toEqual([]);
    const later = ledgerOn(table, { ownerId: 'c', now: () => Date.now() + 31_000 }).ledger;
    expect(await later.leftBehind()).toEqual([call]);
    const deadPid = ledgerOn(table, { ownerId: 'd', isOwnerGone: () => true }).ledger;
    expect(await deadPid.leftBehind()).toEqual([call]);

    await later.strike(call);
    expect(await deadPid.leftBehind()).toEqual([]);
  });

  it('renews the heartbeat of its pieces while they run, and stops once another process reported one', async () => {
    const table = await dynamodb.createTable();
    // A 3 s lease: a heartbeat every second.
    const { ledger: running, lines } = ledgerOn(table, { ownerId: 'a', leaseMs: 3_000 });
    await running.note(call);
    // Seen from 2 s ahead, 1.5 s after the note: 3.5 s after it, past its lease unless renewed.
    const justAfterLease = ledgerOn(table, { ownerId: 'b', now: () => Date.now() + 2_000 }).ledger;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await justAfterLease.leftBehind()).toEqual([]);

    await justAfterLease.strike(call);
    await vi.waitFor(
      () =>
        expect(lines.map((line) => line.message)).toContain(
          'background work no longer noted; its heartbeat stops',
        ),
      { timeout: 3_000 },
    );
  });

  it('an item that does not read back is left in the table and logged once, the others reported', async () => {
    const table = await dynamodb.createTable();
    await ledgerOn(table, { ownerId: 'dead' }).ledger.note(call);
    await dynamodb.client.send(
      new PutItemCommand({
        TableName: table,
        Item: {
          pk: { S: 'BACKGROUND#RUNNING' },
          sk: { S: 'U0#broken' },
          call: { S: '{ not json' },
          ownerId: { S: 'dead' },
          heartbeatAt: { N: '0' },
          leaseMs: { N: '1000' },
        },
      }),
    );
    const { ledger, lines } = ledgerOn(table, { ownerId: 'b', isOwnerGone: () => true });
    expect(await ledger.leftBehind()).toEqual([call]);
    expect(await ledger.leftBehind()).toEqual([call]);
    expect(lines.filter((line) => line.level === 'error')).toEqual([
      expect.objectContaining({
        message: 'background work item cannot be read; left in the table, not reported',
        sk: 'U0#broken',
      }),
    ]);
  });

  it('npm start on DynamoDB reports, at its next start, the work a SIGKILL left running', async () => {
    // Before: the ledger was SQLite's alone; on DynamoDB the user waited for ever.
    const table = await dynamodb.createTable();
    const env = dynamodb.storeEnv(table);
    await killMidBackgroundWork(env);

    // Another process on the same table (the dead one's PID is gone on this host: at once).
    const store = new DynamoDbSourceStore({ client: dynamodb.createClient(), tableName: table });
    const running = await startKaiwaWithFakeLine({ model: reportModel(), store, env });
    try {
      await vi.waitFor(() => expect(running.line.requestsTo('/v2/bot/message/push')).toHaveLength(1), {
        timeout: 10_000,
      });
      await running.kaiwa.host.whenSettled();
      expect(running.line.requestsTo('/v2/bot/message/push').map((request) => request.body)).toMatchObject([
        { to: userId, messages: [{ text: `Ready: render_report: ${JSON.stringify(INTERRUPTED_OUTCOME)}` }] },
      ]);
    } finally {
      await running.close();
    }
    const { ledger } = ledgerOn(table, { ownerId: 'check', isOwnerGone: () => true });
    expect(await ledger.leftBehind()).toEqual([]);
  });
});
