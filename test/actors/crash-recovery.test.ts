import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ActorHost } from '../../src/actors/index.js';
import type { InboxItem } from '../../src/domain/index.js';
import { LineDelivery } from '../../src/line/line-delivery.js';
import { LineTransport } from '../../src/line/line-transport.js';
import { createMessagingApiClient } from '../../src/line/sdk-http-client.js';
import { retryKeyFor } from '../../src/line/retry-key.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, callTools, type ModelPort } from '../../src/model/index.js';
import {
  DynamoDbStore,
  FileStore,
  MemoryStore,
  type ConversationStore,
  type SaveRequest,
} from '../../src/persistence/index.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { defineTool, ToolRegistry, replyTool, skipTool } from '../../src/tools/index.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { storedHistory } from '../support/host-harness.js';
import { until } from '../support/until.js';

/** A store that "crashes" the process after `allowedSaves` saves: every later save hangs for ever. */
class CrashingStore implements ConversationStore {
  saves = 0;
  constructor(
    private readonly inner: ConversationStore,
    private readonly allowedSaves: number,
  ) {}
  accept = (item: InboxItem) => this.inner.accept(item);
  inbox = (sourceId: string) => this.inner.inbox(sourceId);
  load = (sourceId: string) => this.inner.load(sourceId);
  sourcesWithWork = () => this.inner.sourcesWithWork();
  listSources = () => this.inner.listSources();
  deleteSource = (sourceId: string) => this.inner.deleteSource(sourceId);
  save(request: SaveRequest): Promise<number> {
    if (this.saves >= this.allowedSaves) return new Promise(() => {});
    this.saves++;
    return this.inner.save(request);
  }
}

const USER = 'U' + '7'.repeat(32);
const lookupRuns: string[] = [];
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
afterEach(() => line?.close());

function hostOn(store: ConversationStore, model: ModelPort) {
  const transport = new LineTransport({ logger: silentLogger });
  const client = createMessagingApiClient(transport, {
    channelAccessToken: line.emulator.channelAccessToken,
    baseURL: line.url,
  });
  const tools = new ToolRegistry().register(replyTool).register(skipTool).register(lookup);
  const clock = { now: () => Date.now() };
  return new ActorHost({
    store,
    services: {
      model,
      tools,
      delivery: new LineDelivery({ client, transport, clock, logger: silentLogger }),
      systemInstruction: () => 'test',
      clock,
      logger: silentLogger,
    },
    clock,
    backoff: { baseMs: 1, maxMs: 5 },
  });
}

// The checkpoints of this turn, in order: 1 message received · 2 model response (lookup) ·
// 3 tool result · 4 model response (reply) · 5 reply intent · 6 reply sent (the marker).
function crashSuite(name: string, createStore: () => Promise<ConversationStore>) {
  describe(`${name} store: a crash right after each checkpoint`, () => {
    it.each([
      [1, 'message received'],
      [2, 'model response'],
      [3, 'tool result'],
      [4, 'second model response'],
      [6, 'reply sent'],
    ])(
      'after checkpoint %i (%s): resumed from the store, exactly one reply, complete history',
      async (allowed) => {
        line = await startFakeLine();
        lookupRuns.length = 0;
        const durable = await createStore();
        const message = {
          eventId: `crash-${allowed}`,
          source: { kind: 'user' as const, id: USER },
          text: 'what should I drink?',
          timestamp: Date.now(),
          replyToken: line.emulator.issueReplyToken(USER),
        };

        const crashing = new CrashingStore(durable, allowed);
        const first = hostOn(crashing, script());
        await first.accept([message]);
        await until(() => crashing.saves === allowed);
        await new Promise((resolve) => setTimeout(resolve, 50)); // let the first process run into its hang

        // The process is gone; a new one starts on the same store.
        const second = hostOn(durable, script());
        await second.recover();
        await until(
          async () => (await durable.load(USER))?.busy === false && (await durable.inbox(USER)).length === 0,
        );
        await second.whenSettled();

        const shown = line.emulator.entries().filter((entry) => entry.from === 'bot');
        expect(shown.map((entry) => entry.text)).toEqual(['Green tea it is.']);
        const history = storedHistory(await durable.load(USER));
        expect(history.map((entry) => entry.role)).toEqual(['user', 'model', 'tool', 'model', 'tool']);
        expect(history.at(-1)).toMatchObject({ results: [{ name: 'reply', response: { status: 'sent' } }] });
        // A tool whose result was recorded is not run again.
        if (allowed >= 3) expect(lookupRuns).toHaveLength(1);
      },
    );

    it("between LINE's answer and the marker (checkpoint 5): at least once, the resend is a push with the turn's retry key", async () => {
      line = await startFakeLine();
      const durable = await createStore();
      const message = {
        eventId: 'crash-window',
        source: { kind: 'user' as const, id: USER },
        text: 'what should I drink?',
        timestamp: Date.now(),
        replyToken: line.emulator.issueReplyToken(USER),
      };
      const crashing = new CrashingStore(durable, 5);
      const first = hostOn(crashing, script());
      await first.accept([message]);
      await until(() => line.requestsTo('/v2/bot/message/reply').length === 1);

      const second = hostOn(durable, script());
      await second.recover();
      await until(async () => (await durable.load(USER))?.busy === false);
      await second.whenSettled();

      const pushes = line.requestsTo('/v2/bot/message/push');
      expect(pushes).toHaveLength(1);
      expect(pushes[0]?.headers['x-line-retry-key']).toBe(retryKeyFor('crash-window', 0));
      expect(
        line.emulator
          .entries()
          .filter((entry) => entry.from === 'bot')
          .map((entry) => entry.via),
      ).toEqual(['reply', 'push']);
      const stored = (await durable.load(USER))!;
      expect(storedHistory(stored).filter((entry) => entry.role === 'user')).toHaveLength(1);
      expect(stored.snapshot.value).toBe('idle');
    });
  });
}

crashSuite('memory', () => Promise.resolve(new MemoryStore()));

const directories: string[] = [];
afterAll(() => Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true }))));
crashSuite('file', async () => {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-crash-'));
  directories.push(directory);
  return FileStore.open(directory);
});

// Without Java a developer's run skips these; under CI=true they run and fail instead.
describe.skipIf(!dynamoDbLocalRequired())('on DynamoDB Local', () => {
  let local: DynamoDbLocal;
  beforeAll(async () => {
    local = await startDynamoDbLocal();
  });
  afterAll(() => local?.stop());
  crashSuite(
    'dynamodb',
    async () => new DynamoDbStore({ client: local.client, tableName: await local.createTable() }),
  );
});
