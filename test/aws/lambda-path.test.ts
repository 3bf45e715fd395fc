import { DeleteItemCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebhookHandler,
  createWorkerHandler,
  LEASE_SORT_KEY,
  webhookDependenciesFromEnv,
  workerRuntimeProvider,
  type RetryEvent,
  type WorkerEvent,
} from '../../src/aws/index.js';
import { createLogger } from '../../src/logging/index.js';
import { OfflineModel, type ModelPort } from '../../src/model/index.js';
import { DynamoDbStore, SnapshotSourceStore } from '../../src/persistence/index.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { storedHistory, userTexts } from '../support/host-harness.js';
import { startFakeScheduler, type StoredSchedule } from './support/fake-scheduler-server.js';
import { startHoldingProxy } from './support/holding-proxy.js';
import { lambdaContext, signedWebhookEvent, textEvent } from './support/lambda-events.js';
import { inboxInserts, StreamReader } from './support/stream-reader.js';
import { startWorkerProcess } from './support/worker-processes.js';
import { until } from '../support/until.js';

// The Lambda path end to end on DynamoDB Local: the webhook handler gets API Gateway v2
// events, its inbox inserts come out of the table's real stream (DynamoDB Streams API) shaped
// as Lambda's DynamoDBStreamEvent, and the worker runs them — in this process, or as several
// worker processes at once. LINE and EventBridge Scheduler are local fakes speaking their APIs.

const RETRY_GROUP = 'kaiwa-test-retries';
const REMINDER_GROUP = 'kaiwa-test-reminders';
const WORKER_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:kaiwa-test-worker';
const DEAD_LETTERS = 'arn:aws:sqs:us-east-1:123456789012:kaiwa-test-dead-letters';
const user = (n: number) => `U${String(n).padStart(32, 'a')}`;

let local: DynamoDbLocal;
let line: Awaited<ReturnType<typeof startFakeLine>>;
let scheduler: Awaited<ReturnType<typeof startFakeScheduler>>;
const closers: (() => Promise<void> | void)[] = [];

function environment(table: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    STORE: 'dynamodb',
    DYNAMODB_TABLE: table,
    DYNAMODB_ENDPOINT: local.endpoint,
    AWS_REGION: 'us-east-1',
    // The same keys as the test's own client: DynamoDB Local keeps one database per key and region.
    AWS_ACCESS_KEY_ID: 'kaiwalocal',
    AWS_SECRET_ACCESS_KEY: 'kaiwalocal',
    AWS_ENDPOINT_URL_SCHEDULER: scheduler.url,
    LINE_CHANNEL_SECRET: line.emulator.channelSecret,
    LINE_CHANNEL_ACCESS_TOKEN: line.emulator.channelAccessToken,
    LINE_API_BASE_URL: line.url,
    LINE_DATA_API_BASE_URL: line.url,
    LOG_LEVEL: 'silent',
    KAIWA_RETRY_SCHEDULE_GROUP: RETRY_GROUP,
    KAIWA_REMINDER_SCHEDULE_GROUP: REMINDER_GROUP,
    KAIWA_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/kaiwa-test-scheduler',
    KAIWA_REMINDER_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:kaiwa-test-reminder',
    KAIWA_DEAD_LETTER_QUEUE_ARN: DEAD_LETTERS,
    KAIWA_WORKER_PERSIST_MARGIN_MS: '2000',
    KAIWA_WORKER_LEASE_WAIT_MS: '20000',
    ...overrides,
  };
}

/** A table, its stream, and the two handlers in this process. */
async function lambdaPath(options: { model?: ModelPort; env?: Record<string, string> } = {}) {
  const table = await local.createTable();
  const env = environment(table, options.env);
  const reader = StreamReader.forLocal(local.endpoint, table);
  await reader.open();
  closers.push(() => reader.close());
  const webhook = createWebhookHandler(() => Promise.resolve(webhookDependenciesFromEnv(env)));
  const schedulerClient = new SchedulerClient({
    endpoint: scheduler.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const worker = createWorkerHandler(
    workerRuntimeProvider(env, {
      scheduler: schedulerClient,
      ...(options.model && { model: options.model }),
    }),
  );
  const store = new DynamoDbStore({ client: local.client, tableName: table });
  /** The same table through the source store port, as the worker sees it. */
  const sources = new SnapshotSourceStore(store);
  /** Posts one signed webhook with these events; expects 200. */
  async function post(...events: ReturnType<typeof textEvent>[]) {
    const body = JSON.stringify({ destination: line.emulator.botUserId, events });
    const response = await webhook(signedWebhookEvent(body, line.emulator.channelSecret));
    expect(response.statusCode).toBe(200);
  }
  /** Waits for `count` new inbox inserts on the stream. */
  async function inserts(count: number): Promise<DynamoDBRecord[]> {
    return inboxInserts(await reader.readUntil((records) => inboxInserts(records).length >= count));
  }
  return { table, env, reader, webhook, worker, store, sources, post, inserts };
}

function botTexts(chatId: string): string[] {
  return line.emulator
    .entries()
    .filter((entry) => entry.from === 'bot' && entry.chatId === chatId)
    .map((entry) => entry.text ?? '');
}

function retrySchedules(): StoredSchedule[] {
  return scheduler.schedules(RETRY_GROUP);
}

async function leaseOf(table: string, sourceId: string) {
  const { Item } = await local.client.send(
    new GetItemCommand({ TableName: table, Key: { pk: { S: sourceId }, sk: { S: LEASE_SORT_KEY } } }),
  );
  return Item;
}

async function corruptConversation(table: string, sourceId: string) {
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

/** Settled: nothing waits in the inbox and no turn is in progress. */
async function settled(store: DynamoDbStore, sourceId: string) {
  return (await store.inbox(sourceId)).length === 0 && (await store.load(sourceId))?.busy === false;
}

describe.skipIf(!dynamoDbLocalRequired())('the Lambda path on DynamoDB Local', () => {
  beforeAll(async () => {
    [local, line, scheduler] = await Promise.all([
      startDynamoDbLocal(),
      startFakeLine(),
      startFakeScheduler({ groups: [RETRY_GROUP, REMINDER_GROUP] }),
    ]);
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    scheduler.reset();
  });
  afterAll(async () => {
    await Promise.all([local?.stop(), line?.close(), scheduler?.close()]);
  });

  it('webhook → inbox → stream record → worker → one reply; Lambda retrying the same batch changes nothing', async () => {
    const path = await lambdaPath();
    const userId = user(1);
    await path.post(textEvent(userId, 'hello', { replyToken: line.emulator.issueReplyToken(userId) }));

    const records = await path.inserts(1);
    expect(records[0]).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      dynamodb: { Keys: { pk: { S: userId } }, StreamViewType: 'KEYS_ONLY' },
    });
    const event = path.reader.event(records);
    await expect(path.worker(event, lambdaContext(30_000))).resolves.toEqual({ batchItemFailures: [] });

    expect(botTexts(userId)).toEqual([expect.stringContaining('You said: “hello”')]);
    expect(line.requestsTo('/v2/bot/message/reply')).toHaveLength(1);
    expect(await settled(path.store, userId)).toBe(true);
    expect(await leaseOf(path.table, userId)).toBeUndefined();
    expect(retrySchedules()).toHaveLength(0);

    // Lambda delivers a batch at least once: the same records again are only triggers.
    await expect(path.worker(event, lambdaContext(30_000))).resolves.toEqual({ batchItemFailures: [] });
    expect(botTexts(userId)).toHaveLength(1);
    expect(userTexts(await storedHistory(path.sources, userId))).toEqual(['hello']);
  });

  it('a source that keeps failing neither blocks nor replays the other: it gets a scheduled retry and recovers', async () => {
    const path = await lambdaPath();
    const [failing, healthy] = [user(2), user(3)];
    await corruptConversation(path.table, failing);
    await path.post(textEvent(failing, 'first'), textEvent(healthy, 'second'));

    const event = path.reader.event(await path.inserts(2));
    await expect(path.worker(event, lambdaContext(30_000))).resolves.toEqual({ batchItemFailures: [] });

    expect(botTexts(healthy)).toEqual([expect.stringContaining('You said: “second”')]);
    expect(botTexts(failing)).toEqual([]);
    expect(await path.store.inbox(failing)).toHaveLength(1); // the work is kept
    const [retry, ...others] = retrySchedules();
    expect(others).toEqual([]);
    expect(retry).toMatchObject({
      ActionAfterCompletion: 'DELETE',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ScheduleExpressionTimezone: 'UTC',
      Target: { Arn: WORKER_ARN, DeadLetterConfig: { Arn: DEAD_LETTERS } },
    });
    expect(JSON.parse(retry!.Target.Input!)).toEqual({ kaiwa: 'retry', sourceId: failing, attempt: 1 });
    const due = Date.parse(`${/^at\((.*)\)$/.exec(retry!.ScheduleExpression)![1]}Z`);
    expect(due).toBeGreaterThanOrEqual(Date.now() + 50_000); // a minute: EventBridge Scheduler's precision

    // Repaired, the retry fires: the failing source is answered, the other one is not replayed.
    await repairConversation(path.table, failing);
    const fired = scheduler.fire(retry!) as RetryEvent;
    await path.worker(fired, lambdaContext(30_000));
    expect(botTexts(failing)).toEqual([expect.stringContaining('You said: “first”')]);
    expect(botTexts(healthy)).toHaveLength(1);
    expect(retrySchedules()).toHaveLength(0);
  });

  it('only a source whose retry cannot even be scheduled is a batch item failure', async () => {
    const path = await lambdaPath();
    const [failing, healthy] = [user(4), user(5)];
    await corruptConversation(path.table, failing);
    await path.post(textEvent(healthy, 'one'), textEvent(failing, 'two'));
    const records = await path.inserts(2);
    const failingRecord = records.find((record) => record.dynamodb?.Keys?.pk?.S === failing)!;

    scheduler.failCreates(10);
    const result = (await path.worker(
      path.reader.event(records),
      lambdaContext(30_000),
    )) as DynamoDBBatchResponse;
    scheduler.failCreates(0);

    expect(result.batchItemFailures).toEqual([{ itemIdentifier: failingRecord.dynamodb!.SequenceNumber }]);
    expect(botTexts(healthy)).toHaveLength(1);
  });

  it('a retry that runs out of attempts fails the invocation, for the dead-letter queue', async () => {
    const path = await lambdaPath({ env: { KAIWA_RETRY_MAX_ATTEMPTS: '3' } });
    const failing = user(6);
    await corruptConversation(path.table, failing);
    await path.post(textEvent(failing, 'stuck'));

    await expect(
      path.worker({ kaiwa: 'retry', sourceId: failing, attempt: 3 }, lambdaContext(30_000)),
    ).rejects.toMatchObject({ name: 'RetriesExhaustedError', sourceId: failing });
    await expect(
      path.worker({ kaiwa: 'retry', sourceId: failing, attempt: 4 }, lambdaContext(30_000)),
    ).rejects.toThrow(/still fails after scheduled retry 4/);
    expect(await path.store.inbox(failing)).toHaveLength(1);
    expect(retrySchedules()).toHaveLength(0);
  });

  it("a turn cut off by the invocation's deadline is kept and finished by the retry, with one reply", async () => {
    let slowCalls = 1;
    const offline = new OfflineModel();
    const slowOnce: ModelPort = {
      name: 'slow-once',
      generate: async (request) => {
        if (slowCalls-- > 0) {
          await new Promise((resolve, reject) => {
            const timer = setTimeout(resolve, 10_000);
            request.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(new Error('aborted'));
            });
          });
        }
        return offline.generate(request);
      },
    };
    const path = await lambdaPath({ model: slowOnce });
    const userId = user(7);
    await path.post(
      textEvent(userId, 'take your time', { replyToken: line.emulator.issueReplyToken(userId) }),
    );
    const event = path.reader.event(await path.inserts(1));

    // 2 s persist margin: the turn gets 1.5 s, then it is cut off mid-generate — before its first
    // checkpoint, so nothing happened outside and the message is still in the inbox.
    await expect(path.worker(event, lambdaContext(3_500))).resolves.toEqual({ batchItemFailures: [] });
    expect(botTexts(userId)).toEqual([]);
    expect(await path.store.inbox(userId)).toHaveLength(1);
    const [retry] = retrySchedules();
    expect(JSON.parse(retry!.Target.Input!)).toEqual({ kaiwa: 'retry', sourceId: userId, attempt: 1 });

    await path.worker(scheduler.fire(retry!) as WorkerEvent, lambdaContext(30_000));
    expect(botTexts(userId)).toEqual([expect.stringContaining('You said: “take your time”')]);
    expect(await settled(path.store, userId)).toBe(true);
  });

  it('the sweep runs a source whose trigger was lost, and passes over one another worker holds', async () => {
    const path = await lambdaPath();
    const [lost, held] = [user(10), user(11)];
    await path.post(textEvent(lost, 'anyone?'), textEvent(held, 'busy here'));
    await path.inserts(2); // the records are read, never handed to a worker: lost for good
    const otherWorker = workerRuntimeProvider(path.env);
    const leases = (await otherWorker()).leasesFor('another-invocation');
    expect(await leases.acquire(held, Date.now() + 60_000)).toEqual({ acquired: true });

    const started = Date.now();
    await expect(path.worker({ kaiwa: 'sweep' }, lambdaContext(30_000))).resolves.toEqual({ sources: 2 });
    expect(Date.now() - started).toBeLessThan(5_000); // no waiting for the held one
    expect(botTexts(lost)).toEqual([expect.stringContaining('You said: “anyone?”')]);
    expect(botTexts(held)).toEqual([]);
    expect(retrySchedules()).toEqual([]); // the sweep schedules nothing: it comes back by itself

    await leases.release(held);
    await path.worker({ kaiwa: 'sweep' }, lambdaContext(30_000));
    expect(botTexts(held)).toEqual([expect.stringContaining('You said: “busy here”')]);
  });

  it('two workers at once on one source: one runs the turn, the other waits for its lease', async () => {
    const offline = new OfflineModel();
    let modelCalls = 0;
    const slow: ModelPort = {
      name: 'slow',
      generate: async (request) => {
        modelCalls++;
        await new Promise((resolve) => setTimeout(resolve, 300));
        return offline.generate(request);
      },
    };
    const warnings: string[] = [];
    const logger = createLogger({ level: 'warn', write: (line) => warnings.push(line) });
    const path = await lambdaPath({ model: slow });
    const userId = user(12);
    await path.post(
      textEvent(userId, 'only once, please', { replyToken: line.emulator.issueReplyToken(userId) }),
    );
    const event = path.reader.event(await path.inserts(1));
    const instance = () =>
      createWorkerHandler(
        workerRuntimeProvider(path.env, {
          model: slow,
          logger,
          scheduler: new SchedulerClient({
            endpoint: scheduler.url,
            region: 'us-east-1',
            credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
          }),
        }),
      );

    // The stream's invocation and a scheduled retry (or the sweep) on two instances at once.
    await Promise.all([
      instance()(event, lambdaContext(30_000)),
      instance()({ kaiwa: 'retry', sourceId: userId, attempt: 1 }, lambdaContext(30_000)),
    ]);
    // Without the lease both would run the turn and lose version checks to each other
    // (conditional writes keep the history right; the side effects could still run twice).
    expect(warnings.filter((line) => line.includes('version conflict'))).toEqual([]);
    expect(modelCalls).toBe(1);
    expect(botTexts(userId)).toHaveLength(1);
    expect(await settled(path.store, userId)).toBe(true);
  });

  it('a lease: one holder at a time, released by its holder only, lapsing by itself', async () => {
    const path = await lambdaPath();
    const runtime = await workerRuntimeProvider(path.env)();
    const [first, second] = [runtime.leasesFor('first'), runtime.leasesFor('second')];
    const sourceId = user(13);
    const until = Date.now() + 60_000;

    expect(await first.acquire(sourceId, until)).toEqual({ acquired: true });
    expect(await second.acquire(sourceId, until)).toEqual({ acquired: false, heldUntil: until });
    await second.release(sourceId); // not its lease: nothing happens
    expect(await second.acquire(sourceId, until)).toMatchObject({ acquired: false });
    // Waiting: the holder lets go meanwhile.
    setTimeout(() => void first.release(sourceId), 200);
    expect(await second.acquire(sourceId, until, Date.now() + 5_000)).toEqual({ acquired: true });
    await second.release(sourceId);
    // A crashed holder's lease lapses at its end.
    expect(await first.acquire(sourceId, Date.now() - 1)).toEqual({ acquired: true });
    expect(await second.acquire(sourceId, until)).toEqual({ acquired: true });
  });

  it('several worker processes at once on one hot source keep its order and lose nothing', async () => {
    const path = await lambdaPath();
    const userId = user(8);
    const workers = await Promise.all([1, 2, 3].map(() => startWorkerProcess(path.env)));
    closers.push(() => Promise.all(workers.map((worker) => worker.kill())).then(() => undefined));

    const texts = Array.from({ length: 12 }, (_, index) => `message ${index + 1}`);
    const base = Date.now();
    const postWave = async (wave: number) => {
      for (const [offset, text] of texts.slice(wave * 4, wave * 4 + 4).entries()) {
        const replyToken = line.emulator.issueReplyToken(userId);
        await path.post(textEvent(userId, text, { replyToken, timestamp: base + wave * 4 + offset }));
      }
      return path.reader.event(await path.inserts(4));
    };
    const spans: { wave: number; started: number; ended: number }[] = [];
    const invoke = (wave: number, event: WorkerEvent) => {
      const started = Date.now();
      return workers[wave]!.invoke(event, 60_000).then((result) => {
        spans.push({ wave, started, ended: Date.now() });
        return result;
      });
    };
    // Two batches of the same source go to two instances at the same moment; a third batch
    // arrives while they run and goes to a third instance.
    const [first, second] = [await postWave(0), await postWave(1)];
    const running = [invoke(0, first), invoke(1, second)];
    running.push(invoke(2, await postWave(2)));
    for (const result of await Promise.all(running)) expect(result).toEqual({ batchItemFailures: [] });
    const [zero, one] = [0, 1].map((wave) => spans.find((span) => span.wave === wave)!);
    expect(one!.started).toBeLessThan(zero!.ended); // they really overlapped
    // A worker that gave up waiting for the lease left a retry: run those too, as the scheduler would.
    for (let round = 0; retrySchedules().length > 0 && round < 5; round++) {
      await Promise.all(
        retrySchedules().map((schedule, index) =>
          workers[index % 3]!.invoke(scheduler.fire(schedule) as WorkerEvent),
        ),
      );
    }

    expect(await settled(path.store, userId)).toBe(true);
    expect(userTexts(await storedHistory(path.sources, userId))).toEqual(texts);
    expect(botTexts(userId)).toEqual(
      texts.map((text) => expect.stringContaining(`You said: “${text}”`) as string),
    );
    await expect(workers[0]!.invoke({ kaiwa: 'sweep' })).resolves.toEqual({ sources: 0 });
  });

  it('a worker that crashes mid-turn is retried by Lambda without a duplicate reply', async () => {
    const path = await lambdaPath();
    const userId = user(9);
    const proxy = await startHoldingProxy(line.url, '/v2/bot/message/reply');
    closers.push(() => proxy.close());
    const first = await startWorkerProcess({ ...path.env, LINE_API_BASE_URL: proxy.url });
    const second = await startWorkerProcess(path.env);
    closers.push(
      () => first.kill(),
      () => second.kill(),
    );

    await path.post(
      textEvent(userId, 'are you there?', { replyToken: line.emulator.issueReplyToken(userId) }),
    );
    const event = path.reader.event(await path.inserts(1));
    // The first instance dies while its reply is on the way (the intent is saved, LINE never got it).
    void first.invoke(event, 6_000).catch(() => undefined);
    await until(() => proxy.held() === 1);
    await first.kill();
    expect((await path.store.load(userId))?.busy).toBe(true);

    // Lambda retries the batch on another instance; it waits out the dead one's lease, then resumes the turn.
    await expect(second.invoke(event, 60_000)).resolves.toEqual({ batchItemFailures: [] });
    expect(botTexts(userId)).toEqual([expect.stringContaining('You said: “are you there?”')]);
    expect(await settled(path.store, userId)).toBe(true);
    const replies = (await storedHistory(path.sources, userId)).filter((entry) => entry.role === 'tool');
    expect(replies).toHaveLength(1);
  });
});
