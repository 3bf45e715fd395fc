import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ActorHost } from '../../src/actors/index.js';
import { LineDelivery } from '../../src/line/line-delivery.js';
import { LineTransport } from '../../src/line/line-transport.js';
import { createMessagingApiClient } from '../../src/line/sdk-http-client.js';
import { retryKeyFor } from '../../src/line/retry-key.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, callTools, type ModelPort } from '../../src/model/index.js';
import {
  DynamoDbSourceStore,
  MemorySourceStore,
  openSqliteSourceStore,
  type SourceStore,
} from '../../src/persistence/index.js';
import {
  LocalReminderScheduler,
  createReminderTools,
  type Reminder,
  type ReminderList,
} from '../../src/reminders/index.js';
import { defineTool, ToolRegistry, replyTool, skipTool, type Tool } from '../../src/tools/index.js';
import { startHoldingProxy } from '../aws/support/holding-proxy.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { sourceAtRest, storedHistory } from '../support/host-harness.js';
import { until } from '../support/until.js';
import { WatchedSourceStore } from '../support/watched-source-store.js';

const USER = 'U' + '7'.repeat(32);
const lookupRuns: string[] = [];
/** A tool with a side effect of its own: it runs only after its call is durable. */
const lookup = defineTool({
  name: 'lookup',
  description: 'Looks something up.',
  category: 'test',
  optional: true,
  parameters: {
    type: 'object',
    properties: { q: { type: 'string' } },
    required: ['q'],
    additionalProperties: false,
  },
  response: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
}).implement((args, context) => {
  lookupRuns.push(context.idempotencyKey);
  return Promise.resolve({ forLLM: { answer: `about ${args.q}` } });
});

/** The turn: the model looks something up, then replies — decided from history, as a real model would. */
const script = () =>
  new ScriptedModel(
    [
      (request) =>
        request.history.at(-1)?.role === 'tool'
          ? callReply('Green tea it is.')
          : callTools(['lookup', { q: 'tea' }]),
    ],
    { repeatLast: true },
  );

let line: Awaited<ReturnType<typeof startFakeLine>>;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await line?.close();
});

function hostOn(
  store: SourceStore,
  model: ModelPort,
  options: { lineUrl?: string; replyTokenTtlMs?: number; goneOwner?: string; tools?: readonly Tool[] } = {},
) {
  const transport = new LineTransport({ logger: silentLogger });
  const client = createMessagingApiClient(transport, {
    channelAccessToken: line.emulator.channelAccessToken,
    baseURL: options.lineUrl ?? line.url,
  });
  const tools = new ToolRegistry().register(replyTool).register(skipTool).register(lookup);
  for (const tool of options.tools ?? []) tools.register(tool);
  const clock = { now: () => Date.now() };
  return new ActorHost({
    store,
    services: {
      model,
      tools,
      delivery: new LineDelivery({
        client,
        clock,
        logger: silentLogger,
        ...(options.replyTokenTtlMs !== undefined && { replyTokenTtlMs: options.replyTokenTtlMs }),
      }),
      systemInstruction: () => 'test',
      clock,
      logger: silentLogger,
    },
    clock,
    backoff: { baseMs: 1, maxMs: 5 },
    // The first process died on this host: its PID is gone, the next one takes over at once.
    ...(options.goneOwner && { isOwnerGone: (owner) => owner.ownerId === options.goneOwner }),
  });
}

/**
 * What reminders.db keeps across the two processes (`initial` waiting already), and a scheduler
 * over it for one process's host (not started), stopped after the test.
 */
function keptReminders(...initial: Reminder[]) {
  const kept = new Map(initial.map((reminder) => [reminder.id, reminder]));
  const list: ReminderList = {
    all: () => Promise.resolve([...kept.values()]),
    put: (reminder) => Promise.resolve(void kept.set(reminder.id, reminder)),
    remove: (_sourceId, id) => Promise.resolve(void kept.delete(id)),
  };
  const remindersOf = (host: () => ActorHost) => {
    const scheduler = new LocalReminderScheduler({
      list,
      deliver: (message) => host().accept([message]),
      clock: { now: () => Date.now() },
      logger: silentLogger,
    });
    closers.push(() => Promise.resolve(scheduler.stop()));
    return scheduler;
  };
  return { kept, remindersOf };
}

function message(eventId: string) {
  return {
    eventId,
    source: { kind: 'user' as const, id: USER },
    text: 'what should I drink?',
    timestamp: Date.now(),
    replyToken: line.emulator.issueReplyToken(USER),
  };
}

const botMessages = () => line.emulator.entries().filter((entry) => entry.from === 'bot');

// The checkpoints of this turn, in order: 1 the lookup's intent (the message, the model's call,
// the inbox item consumed) · 2 the reply's intent (the lookup's result, the model's reply call)
// · 3 the sent marker (the reply's result). A crash is a store that stops answering after
// `allowed` checkpoints: nothing the process does after that reaches the store.
function crashSuite(name: string, createStore: () => Promise<SourceStore>) {
  describe(`${name}: a crash right after each checkpoint`, () => {
    it.each([
      [0, 'before the first', 1],
      [1, "the lookup's intent", 2],
      [2, "the reply's intent (the reply went out)", 1],
      [3, 'the sent marker', 1],
    ])(
      'after checkpoint %i (%s): resumed from the store, the reply shown once, history complete',
      async (allowed, _name, runs) => {
        line = await startFakeLine();
        lookupRuns.length = 0;
        const durable = await createStore();
        const dying = new WatchedSourceStore(durable);
        dying.beforeCheckpoint = (_checkpoint, index) => {
          if (index === allowed) dying.die();
        };
        const first = hostOn(dying, script());
        await first.accept([message(`crash-${allowed}`)]);
        await until(() => dying.checkpointsOf(USER).length === allowed);
        if (allowed === 2) await until(() => botMessages().length === 1);
        await new Promise((resolve) => setTimeout(resolve, 50)); // let the first process run into its hang

        const second = hostOn(durable, script(), { goneOwner: first.owner.ownerId });
        await second.recover();
        await until(() => sourceAtRest(durable, USER));
        await second.whenSettled();

        expect(botMessages().map((entry) => entry.text)).toEqual(['Green tea it is.']);
        expect(line.requestsTo('/v2/bot/message/push')).toEqual([]);
        const history = await storedHistory(durable, USER);
        expect(history.map((entry) => entry.role)).toEqual(['user', 'model', 'tool', 'model', 'tool']);
        expect(history.at(-1)).toMatchObject({ results: [{ name: 'reply', response: { status: 'sent' } }] });
        // A result recorded in a checkpoint is not asked for again; a re-run keeps its idempotency key.
        expect(lookupRuns).toHaveLength(runs);
        expect(new Set(lookupRuns).size).toBe(1);
      },
    );

    it("after the reply's intent, before LINE got it: the resumed delivery replies with the unused token", async () => {
      line = await startFakeLine();
      const proxy = await startHoldingProxy(line.url, '/v2/bot/message/reply');
      closers.push(() => proxy.close());
      const durable = await createStore();
      const dying = new WatchedSourceStore(durable);
      dying.beforeCheckpoint = (_checkpoint, index) => {
        if (index === 2) dying.die();
      };
      const first = hostOn(dying, script(), { lineUrl: proxy.url });
      await first.accept([message('crash-before-send')]);
      await until(() => proxy.held() === 1); // the process dies with its reply on the way

      const second = hostOn(durable, script(), { goneOwner: first.owner.ownerId });
      await second.recover();
      await until(() => sourceAtRest(durable, USER));
      await second.whenSettled();

      expect(botMessages().map((entry) => [entry.text, entry.via])).toEqual([['Green tea it is.', 'reply']]);
    });

    it("after set_reminder's intent, once it scheduled: the resumed call finds its reminder, one reminder", async () => {
      line = await startFakeLine();
      const { kept, remindersOf } = keptReminders();
      const remind = () =>
        new ScriptedModel(
          [
            (request) =>
              request.history.at(-1)?.role === 'tool'
                ? callReply('I will remind you.')
                : callTools(['set_reminder', { text: 'tea', delay_minutes: 60 }]),
          ],
          { repeatLast: true },
        );
      const durable = await createStore();
      const dying = new WatchedSourceStore(durable);
      // Checkpoint 1 is set_reminder's intent; the process dies before the next one.
      dying.beforeCheckpoint = (_checkpoint, index) => {
        if (index === 1) dying.die();
      };
      const firstScheduler = remindersOf(() => first);
      const first: ActorHost = hostOn(dying, remind(), {
        tools: createReminderTools({ scheduler: firstScheduler }),
      });
      await first.accept([message('crash-reminder')]);
      await until(() => kept.size === 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      firstScheduler.stop();

      const secondScheduler = remindersOf(() => second);
      await secondScheduler.start();
      const second: ActorHost = hostOn(durable, remind(), {
        goneOwner: first.owner.ownerId,
        tools: createReminderTools({ scheduler: secondScheduler }),
      });
      await second.recover();
      await until(() => sourceAtRest(durable, USER));
      await second.whenSettled();

      expect(botMessages().map((entry) => entry.text)).toEqual(['I will remind you.']);
      expect((await secondScheduler.list(USER)).map((reminder) => reminder.text)).toEqual(['tea']);
      expect(kept.size).toBe(1);
    });

    it("after cancel_reminder's intent, once it cancelled: the resumed call answers cancelled, not 'no such reminder'", async () => {
      line = await startFakeLine();
      const tea: Reminder = {
        id: 'a1b2c3d4',
        source: { kind: 'user', id: USER },
        dueAt: Date.now() + 3600_000,
        text: 'tea',
        createdAt: Date.now(),
      };
      const { kept, remindersOf } = keptReminders(tea);
      // The model tells the user what the tool answered, as a real one would.
      const cancel = () =>
        new ScriptedModel(
          [
            (request) => {
              const last = request.history.at(-1);
              if (last?.role !== 'tool') return callTools(['cancel_reminder', { id: tea.id }]);
              const answer = last.results[0]?.response;
              return callReply(answer && 'cancelled' in answer ? 'Cancelled.' : 'I found no such reminder.');
            },
          ],
          { repeatLast: true },
        );
      const durable = await createStore();
      const dying = new WatchedSourceStore(durable);
      // Checkpoint 1 is cancel_reminder's intent; the process dies before the next one.
      dying.beforeCheckpoint = (_checkpoint, index) => {
        if (index === 1) dying.die();
      };
      const firstScheduler = remindersOf(() => first);
      await firstScheduler.start();
      const first: ActorHost = hostOn(dying, cancel(), {
        tools: createReminderTools({ scheduler: firstScheduler }),
      });
      await first.accept([message('crash-cancel')]);
      await until(() => kept.size === 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      firstScheduler.stop();

      const secondScheduler = remindersOf(() => second);
      await secondScheduler.start();
      const second: ActorHost = hostOn(durable, cancel(), {
        goneOwner: first.owner.ownerId,
        tools: createReminderTools({ scheduler: secondScheduler }),
      });
      await second.recover();
      await until(() => sourceAtRest(durable, USER));
      await second.whenSettled();

      expect(botMessages().map((entry) => entry.text)).toEqual(['Cancelled.']);
      expect(await secondScheduler.list(USER)).toEqual([]);
    });

    it("between LINE's answer and the marker, once the token is too old to tell: at least once, pushed with the turn's retry key", async () => {
      line = await startFakeLine();
      const durable = await createStore();
      const dying = new WatchedSourceStore(durable);
      dying.beforeCheckpoint = (_checkpoint, index) => {
        if (index === 2) dying.die();
      };
      const first = hostOn(dying, script());
      await first.accept([message('crash-window')]);
      await until(() => line.requestsTo('/v2/bot/message/reply').length === 1);

      // The next process starts after the reply token's window: it cannot tell, so it pushes.
      const second = hostOn(durable, script(), { goneOwner: first.owner.ownerId, replyTokenTtlMs: 0 });
      await second.recover();
      await until(() => sourceAtRest(durable, USER));
      await second.whenSettled();

      const pushes = line.requestsTo('/v2/bot/message/push');
      expect(pushes).toHaveLength(1);
      expect(pushes[0]?.headers['x-line-retry-key']).toBe(retryKeyFor('crash-window', 0));
      expect(botMessages().map((entry) => entry.via)).toEqual(['reply', 'push']);
      expect((await storedHistory(durable, USER)).filter((entry) => entry.role === 'user')).toHaveLength(1);
    });
  });
}

crashSuite('memory store', () => Promise.resolve(new MemorySourceStore()));

const directories: string[] = [];
afterAll(() => Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true }))));
const stores: SourceStore[] = [];
afterAll(() => Promise.all(stores.map((store) => store.close())));
crashSuite('SQLite store', async () => {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-crash-sqlite-'));
  directories.push(directory);
  const store = await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db') });
  stores.push(store);
  return store;
});

// Without Java a developer's run skips these; under CI=true they run and fail instead.
describe.skipIf(!dynamoDbLocalRequired())('on DynamoDB Local', () => {
  let local: DynamoDbLocal;
  beforeAll(async () => {
    local = await startDynamoDbLocal();
  });
  afterAll(() => local?.stop());
  crashSuite(
    'DynamoDB store',
    async () => new DynamoDbSourceStore({ client: local.client, tableName: await local.createTable() }),
  );
});
