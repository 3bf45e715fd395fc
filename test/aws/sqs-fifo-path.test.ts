import { randomUUID } from 'node:crypto';
import { PutItemCommand, DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, DynamoDBRecord, SQSEvent, SQSRecord } from 'aws-lambda';
import { startFauxqs } from 'fauxqs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLambdaObservability, observedHandler } from '../../src/aws/observability/index.js';
import {
  createWebhookHandler,
  createWorkerHandler,
  webhookDependenciesFromEnv,
  workerRuntimeProvider,
} from '../../src/aws/index.js';
import { OfflineModel, type ModelPort } from '../../src/model/index.js';
import { INTERRUPTED_OUTCOME, type Tool } from '../../src/tools/index.js';
import { DynamoDbSourceStore } from '../../src/persistence/index.js';
import { reminderMessage, type Reminder } from '../../src/reminders/index.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { startCapacityProxy } from '../support/dynamodb-capacity-proxy.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { reportModel, reportTool } from '../support/report-tool.js';
import { storedHead, storedHistory, userTexts } from '../support/host-harness.js';
import { until } from '../support/until.js';
import { startHoldingProxy } from './support/holding-proxy.js';
import { lambdaContext, signedWebhookEvent, textEvent } from './support/lambda-events.js';
import {
  PipeStandIn,
  deliveredRecords,
  pipeFromTemplate,
  type PipeDefinition,
} from './support/pipe-stand-in.js';
import { QueuePoller } from './support/queue-poller.js';
import { StreamReader } from './support/stream-reader.js';
import { startWorkerProcess, type ModelCall, type WorkerProcess } from './support/worker-processes.js';

// The Lambda path end to end, without an AWS account: the real webhook handler writes to
// DynamoDB Local; a stand-in for the EventBridge Pipe reads the table's stream and sends inbox
// inserts to a FIFO queue on fauxqs (an SQS emulator with message groups, visibility timeout,
// deduplication and redrive) with the filter and JSON paths serverless.yml declares; pollers
// standing in for Lambda's event source mapping hand batches to the real worker handler — in
// this process, or in worker processes of their own. LINE is the local fake.

const VISIBILITY_TIMEOUT_S = 4;
const MAX_RECEIVE_COUNT = 3;
const user = (n: number) => `U${String(n).padStart(32, 'a')}`;

let local: DynamoDbLocal;
let line: Awaited<ReturnType<typeof startFakeLine>>;
let sqsServer: Awaited<ReturnType<typeof startFauxqs>>;
let sqs: SQSClient;
let pipeDefinition: PipeDefinition;
const closers: (() => Promise<unknown> | void)[] = [];

function environment(table: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    STORE: 'dynamodb',
    DYNAMODB_TABLE: table,
    DYNAMODB_ENDPOINT: local.endpoint,
    AWS_REGION: 'us-east-1',
    // The same keys as the test's own client: DynamoDB Local keeps one database per key and region.
    AWS_ACCESS_KEY_ID: 'kaiwalocal',
    AWS_SECRET_ACCESS_KEY: 'kaiwalocal',
    LINE_CHANNEL_SECRET: line.emulator.channelSecret,
    LINE_CHANNEL_ACCESS_TOKEN: line.emulator.channelAccessToken,
    LINE_API_BASE_URL: line.url,
    LINE_DATA_API_BASE_URL: line.url,
    LOG_LEVEL: 'silent',
    KAIWA_REMINDER_SCHEDULE_GROUP: 'kaiwa-test-reminders',
    KAIWA_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/kaiwa-test-scheduler',
    KAIWA_REMINDER_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:kaiwa-test-reminder',
    KAIWA_WORKER_PERSIST_MARGIN_MS: '2000',
    // Short, for the test: a dead worker's lease lapses before its message comes back.
    KAIWA_LEASE_MS: '3000',
    // A side effect starts only while the lease covers its timeout (docs/runtime.md, "Ownership").
    KAIWA_LINE_TIMEOUT_MS: '1000',
    KAIWA_TOOL_TIMEOUT_MS: '1000',
    KAIWA_TURN_DEADLINE_MS: '20000',
    ...overrides,
  };
}

/** A FIFO work queue with its dead-letter queue and redrive, as serverless.yml declares them. */
async function workQueue() {
  const name = `work-${Math.random().toString(36).slice(2, 10)}`;
  const dead = await sqs.send(
    new CreateQueueCommand({ QueueName: `${name}-dead.fifo`, Attributes: { FifoQueue: 'true' } }),
  );
  const deadArn = await queueArn(dead.QueueUrl!);
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${name}.fifo`,
      Attributes: {
        FifoQueue: 'true',
        VisibilityTimeout: String(VISIBILITY_TIMEOUT_S),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadArn, maxReceiveCount: MAX_RECEIVE_COUNT }),
      },
    }),
  );
  return { url: queue.QueueUrl!, arn: await queueArn(queue.QueueUrl!), deadUrl: dead.QueueUrl! };
}

async function queueArn(url: string): Promise<string> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return Attributes!.QueueArn!;
}

/** A table, its stream read by the pipe stand-in into a fresh work queue, and the webhook. */
async function lambdaPath(options: { env?: Record<string, string> } = {}) {
  const table = await local.createTable();
  const queue = await workQueue();
  const env = environment(table, { KAIWA_WORK_QUEUE_URL: queue.url, ...options.env });
  const reader = StreamReader.forLocal(local.endpoint, table);
  await reader.open();
  const pipe = new PipeStandIn(reader, sqs, queue.url, pipeDefinition);
  pipe.start();
  closers.push(async () => {
    await pipe.stop();
    reader.close();
  });
  const webhook = createWebhookHandler(() => Promise.resolve(webhookDependenciesFromEnv(env)));
  const store = new DynamoDbSourceStore({ client: local.client, tableName: table });
  const accepted = new Map<string, number>();
  /** Posts one signed webhook with these events; expects 200 and notes when each text was accepted. */
  async function post(...events: ReturnType<typeof textEvent>[]) {
    const body = JSON.stringify({ destination: line.emulator.botUserId, events });
    const response = await webhook(signedWebhookEvent(body, line.emulator.channelSecret));
    expect(response.statusCode).toBe(200);
    for (const event of events) {
      if (event.message.type === 'text') accepted.set(event.message.text, Date.now());
    }
  }
  /** Pollers standing in for the event source mapping, one per worker instance. */
  function poll(...invokers: ((event: SQSEvent) => ReturnType<WorkerProcess['invoke']>)[]) {
    const pollers = invokers.map((invoke) => new QueuePoller(sqs, queue.url, queue.arn, invoke));
    for (const poller of pollers) poller.start();
    closers.unshift(() => Promise.all(pollers.map((poller) => poller.stop())));
    return pollers;
  }
  return { table, env, queue, pipe, webhook, store, post, poll, accepted };
}

function inProcessWorker(
  env: Record<string, string>,
  model: ModelPort = new OfflineModel(),
  tools: readonly Tool[] = [],
) {
  return createWorkerHandler(workerRuntimeProvider(env, { model, sqs, tools }));
}

async function sourceReleased(store: DynamoDbSourceStore, sourceId: string): Promise<boolean> {
  const head = await storedHead(store, sourceId);
  return head !== undefined && head.owner === undefined && head.busy === false;
}

/** A whole Lambda context, as Powertools reads it. */
function fullLambdaContext(functionName: string, remainingMs: number): Context {
  const { getRemainingTimeInMillis, awsRequestId } = lambdaContext(remainingMs);
  return {
    awsRequestId,
    getRemainingTimeInMillis,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:ap-northeast-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '256',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: false,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function botTexts(chatId: string): string[] {
  return line.emulator
    .entries()
    .filter((entry) => entry.from === 'bot' && entry.chatId === chatId)
    .map((entry) => entry.text ?? '');
}

function sqsRecords(records: readonly DynamoDBRecord[], queueArnValue: string): SQSRecord[] {
  return deliveredRecords(records, pipeDefinition, queueArnValue);
}

async function corruptConversation(table: string, sourceId: string) {
  // A first-wave conversation item that cannot be read: loading the source fails every time.
  await local.client.send(
    new PutItemCommand({
      TableName: table,
      Item: {
        pk: { S: sourceId },
        sk: { S: 'CONVERSATION' },
        version: { N: '1' },
        machineVersion: { N: '1' },
        snapshot: { S: '{ not json' },
        busy: { BOOL: false },
        updatedAt: { N: '0' },
      },
    }),
  );
}

async function repairConversation(table: string, sourceId: string) {
  await local.client.send(
    new DeleteItemCommand({ TableName: table, Key: { pk: { S: sourceId }, sk: { S: 'CONVERSATION' } } }),
  );
}

function warmUpMessage(index: number) {
  return {
    eventId: `warm-up-${index}`,
    source: { kind: 'user' as const, id: user(99) },
    sender: { userId: user(99) },
    text: 'warm-up',
    messageId: String(index),
    timestamp: Date.now(),
  };
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

describe.skipIf(!dynamoDbLocalRequired())('the SQS FIFO path on DynamoDB Local and fauxqs', () => {
  beforeAll(async () => {
    [local, line, sqsServer, pipeDefinition] = await Promise.all([
      startDynamoDbLocal(),
      startFakeLine(),
      startFauxqs({ port: 0, logger: false }),
      pipeFromTemplate(),
    ]);
    // DynamoDB Local's first transactions are slow (its JVM warms up): not the webhook's 1.5 s to judge.
    const warmUp = new DynamoDbSourceStore({ client: local.client, tableName: await local.createTable() });
    for (let index = 0; index < 5; index++) await warmUp.accept(warmUpMessage(index));
    sqs = new SQSClient({
      endpoint: `http://127.0.0.1:${sqsServer.port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  }, 60_000);
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  afterAll(async () => {
    sqs?.destroy();
    await Promise.all([local?.stop(), line?.close(), sqsServer?.stop()]);
  });

  it('the pipe stand-in reads its filter and JSON paths from serverless.yml', () => {
    expect(pipeDefinition).toEqual({
      filters: [{ eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: 'INBOX#' }] } } } }],
      messageGroupId: '$.dynamodb.Keys.pk.S',
      messageDeduplicationId: '$.dynamodb.Keys.sk.S',
    });
  });

  it('webhook → inbox → stream → pipe → FIFO group → worker → one reply; a duplicate send and a redelivery change nothing', async () => {
    const path = await lambdaPath();
    const userId = user(1);
    const worker = inProcessWorker(path.env);
    const [poller] = path.poll((event) => worker(event, lambdaContext(30_000)));
    await path.post(textEvent(userId, 'hello', { replyToken: line.emulator.issueReplyToken(userId) }));

    await until(() => botTexts(userId).length === 1);
    expect(botTexts(userId)).toEqual([expect.stringContaining('You said: “hello”')]);
    // Only the inbox insert went through the pipe (not the claim, not the head), grouped by source.
    expect(path.pipe.sent).toHaveLength(1);
    const [batch] = await until(() => poller!.batches.length > 0 && poller!.batches);
    expect(batch!.records.map((record) => record.attributes)).toEqual([
      expect.objectContaining({
        MessageGroupId: userId,
        MessageDeduplicationId: expect.stringMatching(/^INBOX#/) as string,
      }),
    ]);
    expect(batch!.response).toEqual({ batchItemFailures: [] });

    // The pipe retrying a record: the queue drops it as a duplicate.
    await path.pipe.forward(path.pipe.sent[0]!);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(poller!.batches).toHaveLength(1);
    // SQS delivering a message again (at least once): only a trigger, the inbox is empty.
    await expect(worker({ Records: batch!.records as SQSRecord[] }, lambdaContext(30_000))).resolves.toEqual({
      batchItemFailures: [],
    });
    expect(botTexts(userId)).toHaveLength(1);
    expect(userTexts(await storedHistory(path.store, userId))).toEqual(['hello']);
  });

  // The Pipe sends an inbox item's sort key as its SQS deduplication id (at most 128 characters).
  // A repeating reminder's event id (source, UUID and occurrence: 93 characters) made a key of
  // 138: SQS refused it, and on AWS the Pipe would retry it for a day, holding its stream shard.
  it("a repeating reminder's occurrence goes through the pipe and the queue, and is pushed", async () => {
    const path = await lambdaPath();
    const userId = user(40);
    const worker = inProcessWorker(path.env);
    path.poll((event) => worker(event, lambdaContext(30_000)));
    const dueAt = Date.now();
    const reminder: Reminder = {
      id: randomUUID(),
      source: { kind: 'user', id: userId },
      dueAt,
      text: 'stretch',
      createdAt: dueAt - 60_000,
      recurrence: { repeat: 'daily', timeZone: 'Asia/Tokyo', hour: 7, minute: 30, weekday: 1 },
    };

    expect(await path.store.accept(reminderMessage(reminder, dueAt))).toBe(true);

    await until(() => botTexts(userId).length === 1 || path.pipe.errors.length > 0);
    expect(path.pipe.errors).toEqual([]);
    expect(botTexts(userId)).toHaveLength(1);
    expect(await path.store.inbox(userId)).toEqual([]);
  });

  it("a tool's background work finishes within the invocation, and comes back through the inbox, stream, pipe and queue as a turn of its own, pushed", async () => {
    const path = await lambdaPath();
    const userId = user(30);
    let workDoneAt = Infinity;
    const renderReport = reportTool(
      () =>
        new Promise<{ url: string }>((resolve) =>
          setTimeout(() => {
            workDoneAt = Date.now();
            resolve({ url: 'r.pdf' });
          }, 500),
        ),
    );
    const model = reportModel();
    const worker = inProcessWorker(path.env, model, [renderReport]);
    const returnedAt: number[] = [];
    const [poller] = path.poll((event) =>
      worker(event, lambdaContext(30_000)).finally(() => returnedAt.push(Date.now())),
    );
    await path.post(
      textEvent(userId, 'a report, please', { replyToken: line.emulator.issueReplyToken(userId) }),
    );

    await until(() => botTexts(userId).length === 2, 15_000);
    expect(botTexts(userId)).toEqual(['Working on it.', 'Ready: render_report: {"url":"r.pdf"}']);
    // The first invocation waited for the work (a frozen sandbox would hold it), whose item went
    // through the pipe as the second record.
    expect(path.pipe.sent).toHaveLength(2);
    await until(() => poller!.batches.length === 2);
    expect(returnedAt[0]).toBeGreaterThanOrEqual(workDoneAt);
    expect(poller!.batches.map((batch) => batch.response)).toEqual([
      { batchItemFailures: [] },
      { batchItemFailures: [] },
    ]);
  });

  it('background work still running when the invocation ends is reported interrupted, and that comes back as a turn of its own, pushed', async () => {
    // It finished into the inbox only if it settled within the invocation; a frozen sandbox kept
    // it for an unknown time, and the user heard nothing. 6 s left, 2 s kept: a 4 s invocation.
    const path = await lambdaPath({ env: { KAIWA_TURN_DEADLINE_MS: '2000' } });
    const userId = user(31);
    const worker = inProcessWorker(path.env, reportModel(), [reportTool(() => new Promise(() => undefined))]);
    const [poller] = path.poll((event) => worker(event, lambdaContext(6_000)));
    await path.post(
      textEvent(userId, 'a report, please', { replyToken: line.emulator.issueReplyToken(userId) }),
    );

    await until(() => botTexts(userId).length === 2, 20_000);
    expect(botTexts(userId)).toEqual([
      'Working on it.',
      `Ready: render_report: ${JSON.stringify(INTERRUPTED_OUTCOME)}`,
    ]);
    await until(() => poller!.batches.length === 2);
    expect(poller!.batches.map((batch) => batch.response)).toEqual([
      { batchItemFailures: [] },
      { batchItemFailures: [] },
    ]);
  });

  it(
    'background work of a sandbox that died mid-invocation is reported interrupted by the next invocation after its lease',
    { timeout: 60_000 },
    async () => {
      // The invocation that ran it never ended: no report, and the user waited for ever.
      const path = await lambdaPath();
      const userId = user(32);
      const doomed = await startWorkerProcess({ ...path.env, TEST_REPORT_TOOL: '1' });
      const [doomedPoller] = path.poll((event) => doomed.invoke(event, 30_000));
      await path.post(
        textEvent(userId, 'a report, please', { replyToken: line.emulator.issueReplyToken(userId) }),
      );
      await until(() => botTexts(userId).length === 1, 15_000);
      await doomed.kill();
      await doomedPoller!.stop();

      // Another container, invoked for another chat once the dead one's lease (3 s) ran out. Its
      // own work ends at once: an invocation waits for what it started, and would hold the next.
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      const worker = inProcessWorker(path.env, reportModel(), [
        reportTool(() => Promise.resolve({ url: 'other.pdf' })),
      ]);
      path.poll((event) => worker(event, lambdaContext(30_000)));
      const other = user(33);
      await path.post(textEvent(other, 'hello', { replyToken: line.emulator.issueReplyToken(other) }));

      await until(() => botTexts(userId).length === 2, 20_000);
      expect(botTexts(userId)).toEqual([
        'Working on it.',
        `Ready: render_report: ${JSON.stringify(INTERRUPTED_OUTCOME)}`,
      ]);
    },
  );

  it("a failing group's messages fail from the first on; another group in the batch goes through; the redelivery recovers in order", async () => {
    const path = await lambdaPath({ env: { KAIWA_TURN_DEADLINE_MS: '2000' } });
    const [failing, healthy] = [user(2), user(3)];
    await corruptConversation(path.table, failing);
    await path.post(textEvent(failing, 'first'), textEvent(healthy, 'other'), textEvent(failing, 'second'));
    await until(() => path.pipe.sent.length === 3);
    const records = sqsRecords(path.pipe.sent, path.queue.arn);
    const worker = inProcessWorker(path.env);

    // 6 s left, 2 s kept for persisting: 2 s turns fit; the failing source is retried until then.
    const response = await worker({ Records: records }, lambdaContext(6_000));
    const ofFailing = records.filter((record) => record.attributes.MessageGroupId === failing);
    expect(ofFailing).toHaveLength(2);
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      ofFailing.map((record) => record.messageId),
    );
    expect(botTexts(healthy)).toEqual([expect.stringContaining('You said: “other”')]);
    expect(botTexts(failing)).toEqual([]);

    await repairConversation(path.table, failing);
    await expect(worker({ Records: ofFailing }, lambdaContext(30_000))).resolves.toEqual({
      batchItemFailures: [],
    });
    expect(botTexts(failing)).toEqual([
      expect.stringContaining('You said: “first”'),
      expect.stringContaining('You said: “second”'),
    ]);
  });

  it('what a turn costs in DynamoDB on the Lambda path, webhook and worker through a capacity proxy (figures for docs/aws.md)', async () => {
    const proxy = await startCapacityProxy({ upstream: local.endpoint, reader: local.createClient() });
    closers.push(() => proxy.close());
    // 40 turns in well under a minute: with the per-minute limit on, the last ten would be
    // limited turns (one notice, then quiet ones), not the reply turns measured here.
    const path = await lambdaPath({
      env: { DYNAMODB_ENDPOINT: proxy.endpoint, KAIWA_MAX_MODEL_CALLS_PER_MINUTE: '0' },
    });
    const userId = user(20);
    const worker = inProcessWorker(path.env);
    path.poll((event) => worker(event, lambdaContext(30_000)));
    const perTurn: { turn: number; writeUnits: number; readUnits: number; renewalUnits: number }[] = [];
    for (let turn = 1; turn <= 40; turn++) {
      proxy.reset();
      await path.post(
        textEvent(userId, `turn ${turn}`, { replyToken: line.emulator.issueReplyToken(userId) }),
      );
      await until(() => botTexts(userId).length === turn, 15_000);
      // The drain ends after the reply: its closing checkpoint and last reads belong to this turn.
      await until(
        async () =>
          (await path.store.inbox(userId)).length === 0 && (await sourceReleased(path.store, userId)),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Lease renewals are paid by the time a turn holds the source, not per turn: on a loaded
      // machine a turn takes longer and meets one now and then. Counted apart.
      const renewalUnits = proxy.requests
        .filter((request) => request.leaseRenewal)
        .reduce((sum, request) => sum + request.writeUnits, 0);
      perTurn.push({
        turn,
        writeUnits: proxy.writeUnits() - renewalUnits,
        readUnits: proxy.readUnits(),
        renewalUnits,
      });
    }
    if (process.env.KAIWA_PRINT_UNITS)
      console.table(perTurn.filter((row) => [1, 2, 20, 40].includes(row.turn)));

    // accept 4 (claim and inbox item, in a transaction) + acquire 1 + the inbox item's attempt 1 +
    // intent 6 (head, page, inbox delete, in a transaction) + sent marker with the release 1; the
    // work index is off on Lambda (docs/aws.md, "Cost per million turns").
    // A source's first turn also writes its head and the sender's profile.
    expect(perTurn[0]!.writeUnits).toBeLessThanOrEqual(17);
    for (const row of perTurn.slice(1)) expect(row.writeUnits).toBe(13);
    // Every read counted as strongly consistent, at least 1 unit per request (an upper bound).
    // On a loaded machine a turn now and then reads once more (the drain's last inbox read meets
    // the next message) or meets the head mid-turn (a larger item): the typical turn is bounded.
    const reads = perTurn.map((row) => row.readUnits).toSorted((a, b) => a - b);
    expect(reads[Math.floor(reads.length / 2)]).toBeLessThanOrEqual(12);
    expect(reads.at(-1)).toBeLessThanOrEqual(15);
    // A renewal now and then, not one per turn.
    expect(perTurn.filter((row) => row.renewalUnits > 0).length).toBeLessThan(perTurn.length / 4);
  }, 120_000);

  it('what a turn logs on the Lambda path, webhook and worker through Powertools, at info and at warn (figures for docs/aws.md)', async () => {
    const bytesPerTurn = async (level: 'info' | 'warn') => {
      const path = await lambdaPath();
      const userId = user(level === 'info' ? 21 : 22);
      const webhookObservability = createLambdaObservability({ level });
      const workerObservability = createLambdaObservability({ level });
      const webhook = observedHandler(
        webhookObservability,
        createWebhookHandler(
          () => Promise.resolve(webhookDependenciesFromEnv(path.env, undefined, webhookObservability.logger)),
          webhookObservability.logger,
        ),
      );
      const drain = createWorkerHandler(
        workerRuntimeProvider(path.env, { model: new OfflineModel(), logger: workerObservability.logger }),
      );
      // As the worker's entry point wraps it (src/aws/worker-handler.ts).
      const worker = observedHandler(workerObservability, (event: SQSEvent, context?: Context) =>
        drain(event, context!),
      );
      path.poll((event) => worker(event, fullLambdaContext('kaiwa-dev-worker', 30_000)));
      const turns = 10;
      let bytes = 0;
      const counting = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        bytes += Buffer.byteLength(chunk);
        return true;
      });
      const countingErrors = vi
        .spyOn(process.stderr, 'write')
        .mockImplementation((chunk: string | Uint8Array) => {
          bytes += Buffer.byteLength(chunk);
          return true;
        });
      try {
        for (let turn = 1; turn <= turns; turn++) {
          const body = JSON.stringify({
            destination: line.emulator.botUserId,
            events: [
              textEvent(userId, `turn ${turn}`, { replyToken: line.emulator.issueReplyToken(userId) }),
            ],
          });
          const response = await webhook(
            signedWebhookEvent(body, line.emulator.channelSecret),
            fullLambdaContext('kaiwa-dev-webhook', 3_000),
          );
          expect(response.statusCode).toBe(200);
          await until(() => botTexts(userId).length === turn, 15_000);
        }
        await until(async () => sourceReleased(path.store, userId));
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        counting.mockRestore();
        countingErrors.mockRestore();
      }
      return bytes / turns;
    };
    const info = await bytesPerTurn('info');
    const warn = await bytesPerTurn('warn');
    if (process.env.KAIWA_PRINT_UNITS) console.table({ info, warn });
    // The info lines (webhook accepted, model call, reply sent, turn finished) and the EMF blobs of
    // two invocations; at warn only the EMF blobs are left.
    expect(warn).toBeLessThan(info);
    expect(info).toBeLessThanOrEqual(3_500);
    expect(warn).toBeLessThanOrEqual(1_500);
  }, 120_000);

  it('a drain starts no turn whose deadline would not fit: the message comes back, the inbox keeps it', async () => {
    const path = await lambdaPath({ env: { KAIWA_TURN_DEADLINE_MS: '10000' } });
    const userId = user(4);
    let modelCalls = 0;
    const worker = inProcessWorker(path.env, {
      name: 'counting',
      generate: (request) => {
        modelCalls++;
        return new OfflineModel().generate(request);
      },
    });
    await path.post(textEvent(userId, 'not now', { replyToken: line.emulator.issueReplyToken(userId) }));
    await until(() => path.pipe.sent.length === 1);
    const records = sqsRecords(path.pipe.sent, path.queue.arn);

    // 6 s left, 2 s kept for persisting: a 10 s turn does not fit.
    await expect(worker({ Records: records }, lambdaContext(6_000))).resolves.toEqual({
      batchItemFailures: [{ itemIdentifier: records[0]!.messageId }],
    });
    expect(modelCalls).toBe(0);
    expect((await path.store.inbox(userId)).map((stored) => stored.item!.eventId)).toHaveLength(1);
    // Released: the next invocation takes the source at once.
    await expect(worker({ Records: records }, lambdaContext(30_000))).resolves.toEqual({
      batchItemFailures: [],
    });
    expect(botTexts(userId)).toEqual([expect.stringContaining('You said: “not now”')]);
  });

  it('an invocation out of time hands its messages back at once, not after the visibility timeout', async () => {
    const path = await lambdaPath({ env: { KAIWA_TURN_DEADLINE_MS: '10000' } });
    const userId = user(23);
    const worker = inProcessWorker(path.env);
    // The first invocation has 6 s left (2 s kept for persisting): a 10 s turn does not fit.
    let invocations = 0;
    const returnedAt: number[] = [];
    const [poller] = path.poll(async (event) => {
      const remainingMs = ++invocations === 1 ? 6_000 : 30_000;
      const response = await worker(event, lambdaContext(remainingMs));
      returnedAt.push(Date.now());
      return response;
    });
    await path.post(textEvent(userId, 'in time', { replyToken: line.emulator.issueReplyToken(userId) }));

    await until(() => botTexts(userId).length === 1, 15_000);
    const [first, second] = await until(() => poller!.batches.length >= 2 && poller!.batches);
    expect(first!.response!.batchItemFailures).toHaveLength(1);
    expect(second!.records[0]!.attributes.ApproximateReceiveCount).toBe('2');
    // Back well inside the queue's 4 s visibility timeout.
    expect(returnedAt[1]! - returnedAt[0]!).toBeLessThan((VISIBILITY_TIMEOUT_S * 1000) / 2);
    expect(botTexts(userId)).toEqual([expect.stringContaining('You said: “in time”')]);
  });

  it('a group that keeps failing ends in the dead-letter queue by the redrive policy; other groups go on', async () => {
    const path = await lambdaPath({
      env: { KAIWA_WORKER_PERSIST_MARGIN_MS: '1000', KAIWA_TURN_DEADLINE_MS: '1000' },
    });
    const [failing, healthy] = [user(5), user(6)];
    await corruptConversation(path.table, failing);
    const worker = inProcessWorker(path.env);
    // Invocations shorter than the visibility timeout, as the template has them.
    path.poll(
      (event) => worker(event, lambdaContext(2_500)),
      (event) => worker(event, lambdaContext(2_500)),
    );
    await path.post(textEvent(failing, 'poison'));
    await path.post(textEvent(healthy, 'fine'));
    await until(() => botTexts(healthy).length === 1);

    const dead = await until(
      async () => {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: path.queue.deadUrl, MessageSystemAttributeNames: ['All'] }),
        );
        return Messages.length > 0 && Messages;
      },
      (VISIBILITY_TIMEOUT_S * MAX_RECEIVE_COUNT + 10) * 1000,
    );
    expect(dead.map((message) => message.Attributes?.MessageGroupId)).toEqual([failing]);
    // The inbox, not the queue, is the truth: the message still waits for the operator.
    expect(await path.store.inbox(failing)).toHaveLength(1);
  }, 40_000);

  it('a hot group whose turns take 10 s: follow-ups start ≤ 1 s after the previous turn ends, in order; another group is not held up; three worker processes', async () => {
    const path = await lambdaPath();
    const calls: ModelCall[] = [];
    const workers = await Promise.all(
      [1, 2, 3].map(() =>
        startWorkerProcess({ ...path.env, TEST_MODEL_DELAY_MS: '10000' }, (call) => calls.push(call)),
      ),
    );
    closers.push(() => Promise.all(workers.map((worker) => worker.kill())));
    path.poll(...workers.map((worker) => (event: SQSEvent) => worker.invoke(event, 60_000)));
    const [hot, cold] = [user(7), user(8)];
    const callOf = (text: string) => calls.find((call) => call.text === text);

    await path.post(textEvent(hot, 'hot 1', { replyToken: line.emulator.issueReplyToken(hot) }));
    await until(() => callOf('hot 1'));
    // Follow-ups while the first turn runs, and a message in another chat.
    await path.post(textEvent(hot, 'hot 2', { replyToken: line.emulator.issueReplyToken(hot) }));
    await path.post(textEvent(hot, 'hot 3', { replyToken: line.emulator.issueReplyToken(hot) }));
    await path.post(textEvent(cold, 'cold 1', { replyToken: line.emulator.issueReplyToken(cold) }));

    // The other chat does not wait for the hot one: its turn starts while hot 1's 10 s model call runs.
    await until(() => callOf('cold 1'), 9_000);
    expect(callOf('cold 1')!.at).toBeLessThan(callOf('hot 1')!.at + 10_000);
    await until(() => botTexts(hot).length === 3, 45_000);
    const hotCalls = ['hot 1', 'hot 2', 'hot 3'].map((text) => callOf(text)!);
    expect(hotCalls.map((call) => call.text)).toEqual(['hot 1', 'hot 2', 'hot 3']);
    const replies = line.emulator.entries().filter((entry) => entry.from === 'bot' && entry.chatId === hot);
    for (const index of [1, 2]) {
      // The previous turn ended when its reply reached LINE; the next starts within a second.
      const previousEnded = replies[index - 1]!.time;
      expect(hotCalls[index]!.at).toBeGreaterThanOrEqual(previousEnded - 50);
      expect(hotCalls[index]!.at - previousEnded).toBeLessThanOrEqual(1_000);
    }
    expect(botTexts(hot)).toEqual(
      ['hot 1', 'hot 2', 'hot 3'].map((text) => expect.stringContaining(`You said: “${text}”`) as string),
    );
    expect(botTexts(cold)).toHaveLength(1);
  }, 60_000);

  it('follow-up latency, accept → model call, three worker processes (figures for docs/aws.md)', async () => {
    const path = await lambdaPath();
    const calls: ModelCall[] = [];
    const workers = await Promise.all(
      [1, 2, 3].map(() => startWorkerProcess(path.env, (call) => calls.push(call))),
    );
    closers.push(() => Promise.all(workers.map((worker) => worker.kill())));
    path.poll(...workers.map((worker) => (event: SQSEvent) => worker.invoke(event, 60_000)));
    const latencies: number[] = [];
    const toQueue: number[] = [];
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        [10, 11, 12, 13].map(async (n) => {
          const userId = user(n);
          const text = `round ${round} from ${n}`;
          const event = textEvent(userId, text, { replyToken: line.emulator.issueReplyToken(userId) });
          await path.post(event);
          const call = await until(() => calls.find((candidate) => candidate.text === text), 30_000);
          latencies.push(call.at - path.accepted.get(text)!);
          const sent = await until(() => {
            const index = path.pipe.sent.findIndex((record) =>
              record.dynamodb!.Keys!.sk!.S!.endsWith(`#${event.webhookEventId}`),
            );
            return index >= 0 && index;
          });
          toQueue.push(path.pipe.sentAt[sent]! - path.accepted.get(text)!);
          await until(() => botTexts(userId).length === round + 1, 30_000);
        }),
      );
    }
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    console.info(
      `follow-up latency accept → model call: p50 ${p50} ms, p99 ${p99} ms (n=${latencies.length}); ` +
        `of which accept → in the queue: p50 ${percentile(toQueue, 0.5)} ms, p99 ${percentile(toQueue, 0.99)} ms`,
    );
    // A figure for the docs, not a timed assertion: the machine's load decides it.
    expect(latencies).toHaveLength(40);
  }, 180_000);

  it('a worker killed mid-turn: its message comes back after the visibility timeout and the reply is not doubled', async () => {
    const path = await lambdaPath();
    const userId = user(9);
    const proxy = await startHoldingProxy(line.url, '/v2/bot/message/reply');
    closers.push(() => proxy.close());
    const doomed = await startWorkerProcess({ ...path.env, LINE_API_BASE_URL: proxy.url });
    closers.push(() => doomed.kill());
    const [doomedPoller] = path.poll((event) => doomed.invoke(event, 60_000));

    await path.post(
      textEvent(userId, 'are you there?', { replyToken: line.emulator.issueReplyToken(userId) }),
    );
    // It dies while its reply is on the way (the intent is saved, LINE never got the reply).
    await until(() => proxy.held() === 1);
    const killedAt = Date.now();
    await doomed.kill();
    await until(() => doomedPoller!.batches.length === 1);

    const survivor = await startWorkerProcess(path.env);
    closers.push(() => survivor.kill());
    const [poller] = path.poll((event) => survivor.invoke(event, 60_000));
    await until(() => botTexts(userId).length === 1, 20_000);
    const [batch] = await until(() => poller!.batches.length > 0 && poller!.batches);
    expect(batch!.records[0]!.attributes.ApproximateReceiveCount).toBe('2');
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(VISIBILITY_TIMEOUT_S * 1000 - 1_000);
    expect(batch!.response).toEqual({ batchItemFailures: [] });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(botTexts(userId)).toEqual([expect.stringContaining('You said: “are you there?”')]);
    const replies = (await storedHistory(path.store, userId)).filter((entry) => entry.role === 'tool');
    expect(replies).toHaveLength(1);
  }, 40_000);
});
