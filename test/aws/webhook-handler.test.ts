import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createWebhookHandler,
  SsmSecrets,
  webhookDependenciesFromEnv,
  type WebhookHandlerDependencies,
} from '../../src/aws/index.js';
import type { InboxItem } from '../../src/domain/index.js';
import { MAX_WEBHOOK_BYTES } from '../../src/line/webhook-handling.js';
import { silentLogger } from '../../src/logging/index.js';
import { DynamoDbSourceStore, MemorySourceStore, type SourceStore } from '../../src/persistence/index.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { webhookBodyOfSize } from '../support/sized-webhook-body.js';
import {
  botUserId,
  groupSource,
  textMessageEvent,
  unfollowEvent,
  webhookBody,
} from '../support/webhook-fixtures.js';
import {
  deeplyNestedText,
  eventIdNotLineShaped,
  groupIdAsArray,
  serialize,
  textAsObject,
  textWithoutText,
} from '../support/hostile-events.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { recordingLogger } from '../support/recording-logger.js';
import { startFakeSsm } from './support/fake-ssm-server.js';
import { apiGatewayEvent, signedWebhookEvent, textEvent } from './support/lambda-events.js';

const SECRET = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

function webhookOn(store: Pick<SourceStore, 'accept'>, overrides: Partial<WebhookHandlerDependencies> = {}) {
  return createWebhookHandler(() =>
    Promise.resolve({
      store,
      channelSecret: () => Promise.resolve(SECRET),
      groupPolicy: { mode: 'all', botName: 'kaiwa' },
      acceptDeadlineMs: 1500,
      logger: silentLogger,
      ...overrides,
    }),
  );
}

const body = JSON.stringify(webhookBody([textMessageEvent]));

/** A source's waiting messages, oldest first. */
async function inboxOf(store: MemorySourceStore, sourceId: string) {
  return (await store.inbox(sourceId)).map(({ item }) => item!);
}

describe('the webhook Lambda handler (API Gateway HTTP API, payload 2.0)', () => {
  it.each([
    { name: 'no signature', event: () => apiGatewayEvent(body), status: 401 },
    { name: 'a wrong signature', event: () => signedWebhookEvent(body, 'another secret'), status: 401 },
    {
      name: 'a signature of another body',
      event: () => ({ ...signedWebhookEvent(body, SECRET), body: `${body} ` }),
      status: 401,
    },
    { name: 'malformed JSON', event: () => signedWebhookEvent('{"events": [', SECRET), status: 400 },
    { name: 'no events array', event: () => signedWebhookEvent('{"destination":"U1"}', SECRET), status: 400 },
    {
      name: 'a body of 1 MiB + 1 byte',
      event: () => signedWebhookEvent(webhookBodyOfSize(MAX_WEBHOOK_BYTES + 1), SECRET),
      status: 413,
    },
  ])('answers $name with $status and stores nothing', async ({ event, status }) => {
    const store = new MemorySourceStore();
    const response = await webhookOn(store)(event());
    expect(response.statusCode).toBe(status);
    expect(await inboxOf(store, groupSource.groupId)).toEqual([]);
  });

  it.each([{ base64: false }, { base64: true }])(
    'accepts a body of exactly 1 MiB (base64 body: $base64)',
    async ({ base64 }) => {
      const event = signedWebhookEvent(webhookBodyOfSize(MAX_WEBHOOK_BYTES), SECRET, { base64 });
      expect((await webhookOn(new MemorySourceStore())(event)).statusCode).toBe(200);
    },
  );

  it('answers 200 to an empty event list (LINE\'s "verify" button)', async () => {
    const response = await webhookOn(new MemorySourceStore())(
      signedWebhookEvent(JSON.stringify(webhookBody([])), SECRET),
    );
    expect(response).toMatchObject({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
  });

  it.each([{ base64: false }, { base64: true }])(
    'stores every event in its source inbox before the 200 (base64 body: $base64); a redelivery is a duplicate',
    async ({ base64 }) => {
      const store = new MemorySourceStore();
      const userId = 'U4af4980629a1b2c3d4e5f60718293a4b';
      const events = [textEvent(userId, 'one'), textMessageEvent, textEvent(userId, 'two'), unfollowEvent];
      const event = signedWebhookEvent(JSON.stringify(webhookBody(events)), SECRET, { base64 });

      expect((await webhookOn(store)(event)).statusCode).toBe(200);
      const inbox = await inboxOf(store, userId);
      expect(
        inbox.map((item) => (item.kind === 'forget' ? 'forget' : (item as { text: string }).text)),
      ).toEqual(['one', 'two', 'forget']);
      expect(await inboxOf(store, groupSource.groupId)).toHaveLength(1);

      // LINE redelivers the same events: the claims make them duplicates.
      expect((await webhookOn(store)(event)).statusCode).toBe(200);
      expect(await inboxOf(store, userId)).toHaveLength(3);
    },
  );

  it('answers 500 when the store fails, so LINE redelivers', async () => {
    const store = new MemorySourceStore();
    const failing: Pick<SourceStore, 'accept'> = Object.assign(Object.create(store) as MemorySourceStore, {
      accept: () => Promise.reject(new Error('DynamoDB is down')),
    });
    const response = await webhookOn(failing)(signedWebhookEvent(body, SECRET));
    expect(response.statusCode).toBe(500);
  });

  it('answers 500 within its deadline when the store is too slow (LINE waits 2 s at most)', async () => {
    const slow: Pick<SourceStore, 'accept'> = Object.assign(
      Object.create(new MemorySourceStore()) as MemorySourceStore,
      {
        accept: () => new Promise<boolean>(() => {}),
      },
    );
    const started = Date.now();
    const response = await webhookOn(slow, { acceptDeadlineMs: 300 })(signedWebhookEvent(body, SECRET));
    expect(response.statusCode).toBe(500);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('says whether a write that outran its deadline landed: stored late, or failed', async () => {
    for (const outcome of ['lands', 'fails'] as const) {
      const { lines, logger } = recordingLogger('info');
      const stored = new MemorySourceStore();
      let finish!: () => void;
      const late: Pick<SourceStore, 'accept'> = {
        accept: (item) =>
          new Promise<void>((resolve) => (finish = resolve)).then(() =>
            outcome === 'lands' ? stored.accept(item) : Promise.reject(new Error('DynamoDB is down')),
          ),
      };
      const response = await webhookOn(late, { acceptDeadlineMs: 100, logger })(
        signedWebhookEvent(body, SECRET),
      );
      expect(response.statusCode).toBe(500);
      expect(lines.map((line) => line.message)).toEqual([
        'webhook events not stored within the deadline; answered 500, the write goes on',
      ]);

      finish();
      await vi.waitFor(() => expect(lines).toHaveLength(2));
      expect(lines[1]).toMatchObject(
        outcome === 'lands'
          ? { level: 'warn', message: 'webhook events stored after their deadline', accepted: 1 }
          : { level: 'error', message: 'webhook events could not be stored; LINE will redeliver' },
      );
    }
  });

  it('answers 500 (nothing stored, LINE redelivers) while its configuration is broken', async () => {
    const handler = createWebhookHandler(
      () => Promise.reject(new Error('DYNAMODB_TABLE is invalid')),
      silentLogger,
    );
    expect((await handler(signedWebhookEvent(body, SECRET))).statusCode).toBe(500);
  });

  it("caps a source's inbox: beyond KAIWA_MAX_INBOX messages are counted into one overflow item, none lost", async () => {
    const store = new MemorySourceStore({ maxInbox: 10 });
    const events = Array.from({ length: 30 }, (_, index) =>
      textEvent('Uaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', `m${index}`, { timestamp: Date.now() + index }),
    );
    const response = await webhookOn(store)(signedWebhookEvent(JSON.stringify(webhookBody(events)), SECRET));

    expect(response.statusCode).toBe(200);
    const waiting = await inboxOf(store, 'Uaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
    expect(waiting.map((item) => (item as { text: string }).text).slice(0, 10)).toEqual(
      events.slice(0, 10).map((_, index) => `m${index}`),
    );
    expect(waiting).toHaveLength(11);
    expect(waiting[10]).toMatchObject({ overflow: { count: 20, addressed: 20 } });
    expect(
      webhookDependenciesFromEnv(
        {
          DYNAMODB_TABLE: 'kaiwa-test',
          AWS_REGION: 'us-east-1',
          LINE_CHANNEL_SECRET: SECRET,
          KAIWA_MAX_INBOX: '25',
        },
        { read: () => Promise.reject(new Error('no SSM here')) },
      ).store,
    ).toMatchObject({ maxInbox: 25 });
  });

  it('keeps each source in order and accepts different sources side by side', async () => {
    const accepted: string[] = [];
    const store = new MemorySourceStore();
    const recording: Pick<SourceStore, 'accept'> = Object.assign(Object.create(store) as MemorySourceStore, {
      accept: async (item: InboxItem) => {
        // The first source is slow: the second must not wait for it, and the first keeps its order.
        if (item.source.id === 'Uaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')
          await new Promise((resolve) => setTimeout(resolve, 30));
        accepted.push(`${item.source.id.slice(0, 2)}:${(item as { text: string }).text}`);
        return store.accept(item);
      },
    });
    const events = [
      textEvent('Uaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'a1'),
      textEvent('Ubbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'b1'),
      textEvent('Uaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'a2'),
    ];
    await webhookOn(recording)(signedWebhookEvent(JSON.stringify(webhookBody(events)), SECRET));
    expect(accepted).toEqual(['Ub:b1', 'Ua:a1', 'Ua:a2']);
  });
});

describe("the webhook Lambda handler checks every event against LINE's webhook schema", () => {
  it('skips the events that break it, stores the rest, and answers 200', async () => {
    const accepted: InboxItem[] = [];
    const store = new MemorySourceStore();
    const recording: Pick<SourceStore, 'accept'> = Object.assign(Object.create(store) as MemorySourceStore, {
      accept: (item: InboxItem) => {
        accepted.push(item);
        return store.accept(item);
      },
    });
    const userId = 'U4af4980629a1b2c3d4e5f60718293a4b';
    const events = [
      textAsObject(textEvent(userId, 'x')),
      textEvent(userId, 'first good one'),
      groupIdAsArray(textEvent(userId, 'x')),
      deeplyNestedText(textEvent(userId, 'x')),
      textWithoutText(textEvent(userId, 'x')),
      textEvent(userId, 'second good one'),
    ];

    const response = await webhookOn(recording)(
      signedWebhookEvent(serialize({ destination: botUserId, events }), SECRET),
    );

    expect(response.statusCode).toBe(200);
    expect(accepted.map((item) => [item.source.id, (item as { text: string }).text])).toEqual([
      [userId, 'first good one'],
      [userId, 'second good one'],
    ]);
  });
});

describe('the webhook Lambda handler and timestamps no date can hold', () => {
  it.each([9.2e18, 1e16, -5])(
    'skips an event with timestamp %d and stores the rest, with 200',
    async (timestamp) => {
      const store = new MemorySourceStore();
      const userId = 'U4af4980629a1b2c3d4e5f60718293a4b';
      const events = [
        textEvent(userId, 'before'),
        { ...textEvent(userId, 'bad'), timestamp },
        textEvent(userId, 'after'),
      ];

      const response = await webhookOn(store)(
        signedWebhookEvent(JSON.stringify({ destination: botUserId, events }), SECRET),
      );

      expect(response.statusCode).toBe(200);
      expect((await store.inbox(userId)).map(({ item }) => (item as { text?: string }).text)).toEqual([
        'before',
        'after',
      ]);
    },
  );
});

describe('the webhook Lambda handler refuses misdirected bodies and marks stale messages', () => {
  const BOT = 'U' + '1'.repeat(32);
  const userId = 'U4af4980629a1b2c3d4e5f60718293a4b';

  it('answers 200 to a body for another bot and stores nothing', async () => {
    const store = new MemorySourceStore();
    const handler = webhookOn(store, { botUserId: () => Promise.resolve(BOT) });
    const misdirected = webhookBody([textEvent(userId, 'hello')], 'U' + '2'.repeat(32));

    const response = await handler(signedWebhookEvent(JSON.stringify(misdirected), SECRET));

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body as string)).toEqual({
      message: 'destination is not this bot: nothing processed',
    });
    expect(await inboxOf(store, userId)).toEqual([]);
    const addressed = webhookBody([textEvent(userId, 'hello')], BOT);
    expect((await handler(signedWebhookEvent(JSON.stringify(addressed), SECRET))).statusCode).toBe(200);
    expect(await inboxOf(store, userId)).toHaveLength(1);
  });

  it('stores a message older than KAIWA_STALE_EVENT_MS quiet and stale: the worker will not answer it', async () => {
    const store = new MemorySourceStore();
    const handler = webhookOn(store, { staleEventMs: 60_000 });
    const events = [
      textEvent(userId, 'old', { timestamp: Date.now() - 61_000 }),
      textEvent(userId, 'new', { timestamp: Date.now() - 1_000 }),
    ];

    expect((await handler(signedWebhookEvent(JSON.stringify(webhookBody(events)), SECRET))).statusCode).toBe(
      200,
    );

    expect(await inboxOf(store, userId)).toEqual([
      expect.objectContaining({ text: 'old', quiet: true, stale: true }),
      expect.not.objectContaining({ stale: true }),
    ]);
  });

  it('reads LINE_BOT_USER_ID and KAIWA_STALE_EVENT_MS from its environment', async () => {
    const dependencies = webhookDependenciesFromEnv(
      {
        DYNAMODB_TABLE: 'kaiwa-test',
        AWS_REGION: 'us-east-1',
        LINE_CHANNEL_SECRET: SECRET,
        LINE_BOT_USER_ID: BOT,
        KAIWA_STALE_EVENT_MS: '120000',
      },
      { read: () => Promise.reject(new Error('no SSM here')) },
    );
    expect(await dependencies.botUserId?.()).toBe(BOT);
    expect(dependencies.staleEventMs).toBe(120_000);
    expect(() =>
      webhookDependenciesFromEnv({
        DYNAMODB_TABLE: 'kaiwa-test',
        AWS_REGION: 'us-east-1',
        LINE_CHANNEL_SECRET: SECRET,
        LINE_BOT_USER_ID: 'Ubot',
      }),
    ).toThrow(/LINE_BOT_USER_ID/);
    // The function holds no access token (least privilege): unchecked, and said so at start.
    expect(
      webhookDependenciesFromEnv({
        DYNAMODB_TABLE: 'kaiwa-test',
        AWS_REGION: 'us-east-1',
        LINE_CHANNEL_SECRET: SECRET,
      }).botUserId,
    ).toBeUndefined();
  });
});

describe('the webhook given the access token asks LINE who the bot is (getBotInfo), once', () => {
  it('through the SDK client, against LINE_API_BASE_URL, with the token from SSM', async () => {
    const line = await startFakeLine();
    const ssm = await startFakeSsm({ '/kaiwa/test/token': line.emulator.channelAccessToken });
    try {
      const dependencies = webhookDependenciesFromEnv(
        {
          DYNAMODB_TABLE: 'kaiwa-test',
          AWS_REGION: 'us-east-1',
          LINE_CHANNEL_SECRET: SECRET,
          KAIWA_SSM_LINE_CHANNEL_ACCESS_TOKEN: '/kaiwa/test/token',
          LINE_API_BASE_URL: line.url,
        },
        new SsmSecrets({
          client: new SSMClient({
            endpoint: ssm.url,
            region: 'us-east-1',
            credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
          }),
        }),
      );
      expect(await dependencies.botUserId?.()).toBe(line.emulator.botUserId);
      expect(await dependencies.botUserId?.()).toBe(line.emulator.botUserId);
      expect(line.requestsTo('/v2/bot/info')).toHaveLength(1);
    } finally {
      await ssm.close();
      await line.close();
    }
  });
});

describe('the webhook reads its channel secret from SSM Parameter Store', () => {
  let ssm: Awaited<ReturnType<typeof startFakeSsm>>;
  beforeAll(async () => {
    ssm = await startFakeSsm({ '/kaiwa/test/line-channel-secret': SECRET });
  });
  afterAll(() => ssm.close());

  function ssmClient() {
    return new SSMClient({
      endpoint: ssm.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
  }

  it('verifies with the secret read at run time, once per cache period', async () => {
    const env = {
      DYNAMODB_TABLE: 'kaiwa-test',
      AWS_REGION: 'us-east-1',
      KAIWA_SSM_LINE_CHANNEL_SECRET: '/kaiwa/test/line-channel-secret',
    };
    const dependencies = webhookDependenciesFromEnv(env, new SsmSecrets({ client: ssmClient() }));
    const store = new MemorySourceStore();
    const handler = createWebhookHandler(() =>
      Promise.resolve({ ...dependencies, store, logger: silentLogger }),
    );

    expect((await handler(signedWebhookEvent(body, SECRET))).statusCode).toBe(200);
    expect((await handler(signedWebhookEvent(body, 'not the secret'))).statusCode).toBe(401);
    expect(ssm.calls).toEqual([{ names: ['/kaiwa/test/line-channel-secret'], withDecryption: true }]);
  });

  describe('inside the accept budget', () => {
    afterEach(() => {
      ssm.answerAfter(0);
      vi.unstubAllEnvs();
    });
    const env = {
      DYNAMODB_TABLE: 'kaiwa-test',
      AWS_REGION: 'us-east-1',
      KAIWA_SSM_LINE_CHANNEL_SECRET: '/kaiwa/test/line-channel-secret',
      KAIWA_WEBHOOK_ACCEPT_DEADLINE_MS: '400',
    };
    /** A store whose accept takes `ms`, counting the events it stored. */
    function storeTaking(ms: number) {
      const store = new MemorySourceStore();
      let stored = 0;
      const slow = Object.assign(Object.create(store) as MemorySourceStore, {
        accept: async (item: InboxItem) => {
          await new Promise((resolve) => setTimeout(resolve, ms));
          stored++;
          return store.accept(item);
        },
      });
      return { store: slow, stored: () => stored };
    }

    it('a slow SSM read gets 500 when the budget is spent, not a late 200 past LINE’s 2 s', async () => {
      ssm.answerAfter(1500);
      const { store, stored } = storeTaking(0);
      const dependencies = webhookDependenciesFromEnv(env, new SsmSecrets({ client: ssmClient() }));
      const handler = createWebhookHandler(
        () => Promise.resolve({ ...dependencies, store, logger: silentLogger }),
        silentLogger,
      );
      const started = Date.now();
      const response = await handler(signedWebhookEvent(body, SECRET));
      expect(response.statusCode).toBe(500);
      expect(Date.now() - started).toBeLessThan(1200);
      expect(stored()).toBe(0);
    });

    it('one budget for the SSM read and the store together', async () => {
      ssm.answerAfter(300);
      const { store, stored } = storeTaking(300);
      const dependencies = webhookDependenciesFromEnv(env, new SsmSecrets({ client: ssmClient() }));
      const handler = createWebhookHandler(
        () => Promise.resolve({ ...dependencies, store, logger: silentLogger }),
        silentLogger,
      );
      expect((await handler(signedWebhookEvent(body, SECRET))).statusCode).toBe(500);
      ssm.answerAfter(0);
      // The read was cached: the redelivery fits, and is stored.
      expect((await handler(signedWebhookEvent(body, SECRET))).statusCode).toBe(200);
      expect(stored()).toBeGreaterThan(0);
    });

    it('its SSM client gives up on a hung SSM by itself (request timeout), not after the function’s 10 s', async () => {
      ssm.answerAfter(8000);
      vi.stubEnv('AWS_ENDPOINT_URL_SSM', ssm.url);
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'a');
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'b');
      vi.stubEnv('AWS_REGION', 'us-east-1');
      const dependencies = webhookDependenciesFromEnv(env);
      const started = Date.now();
      await expect(dependencies.channelSecret()).rejects.toThrow(/timeout|timed out|aborted/i);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(ssm.calls.length).toBeGreaterThan(0);
    });
  });

  it('fails at composition, naming the variable, when neither the secret nor its parameter is set', () => {
    expect(() =>
      webhookDependenciesFromEnv({ DYNAMODB_TABLE: 'kaiwa-test', AWS_REGION: 'us-east-1' }),
    ).toThrow(/KAIWA_SSM_LINE_CHANNEL_SECRET/);
  });
});

// Without Java a developer's run skips this; under CI=true it runs and fails instead.
describe.skipIf(!dynamoDbLocalRequired())('the webhook Lambda handler on DynamoDB Local', () => {
  let local: DynamoDbLocal;
  beforeAll(async () => {
    local = await startDynamoDbLocal();
  });
  afterAll(() => local?.stop());

  it.each([
    ['2,000 characters', 'A'.repeat(2_000)],
    ['a key separator in it', '01HBAD#EVENT0000000000000'],
    ['a space in it', '01HBAD EVENT0000000000000'],
  ])(
    'skips an event whose id is no LINE event id (%s) and stores the events after it, with 200',
    async (_name, id) => {
      const store = new DynamoDbSourceStore({ client: local.client, tableName: await local.createTable() });
      const { lines, logger } = recordingLogger('warn');
      const userId = 'U4af4980629a1b2c3d4e5f60718293a4b';
      const events = [
        textEvent(userId, 'before'),
        eventIdNotLineShaped(textEvent(userId, 'bad'), id),
        textEvent(userId, 'after'),
      ];

      const response = await webhookOn(store, { logger })(
        signedWebhookEvent(JSON.stringify({ destination: botUserId, events }), SECRET),
      );

      expect(response.statusCode).toBe(200);
      const texts = (await store.inbox(userId)).map(({ item }) => (item as { text?: string }).text);
      expect(texts).toEqual(['before', 'after']);
      expect(lines).toContainEqual(
        expect.objectContaining({ message: "webhook event skipped: it breaks LINE's webhook schema" }),
      );
    },
  );
});
