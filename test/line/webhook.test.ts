import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import { LineSchemas } from '../../src/line/openapi/line-schemas.js';
import { ScriptedModel, callReply, type ModelRequest } from '../../src/model/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import { signBody } from '../../src/line/emulator/webhook-sender.js';
import { MAX_WEBHOOK_BYTES } from '../../src/line/webhook-handling.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { startKaiwa } from '../../src/server/kaiwa-runtime.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { CHANNEL_SECRET, startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';
import { webhookBodyOfSize } from '../support/sized-webhook-body.js';
import { until } from '../support/until.js';
import { recordingLogger } from '../support/recording-logger.js';

const USER = 'U' + 'a'.repeat(32);
const GROUP = 'C' + 'b'.repeat(32);
const ROOM = 'R' + 'c'.repeat(32);

const echo = () =>
  new ScriptedModel(
    [
      (request: ModelRequest) =>
        callReply(`re: ${userText(request.history.findLast((entry) => entry.role === 'user'))}`),
    ],
    { repeatLast: true },
  );

const userText = (entry: HistoryEntry | undefined) => (entry?.role === 'user' ? entry.text : '');

let running: Awaited<ReturnType<typeof startKaiwaWithFakeLine>> | undefined;
/** What kaiwa asked of LINE, its own bot-info lookup aside. */
const sentToLine = () => running!.line.requests.filter((request) => request.path !== '/v2/bot/info');
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('POST /webhook over HTTP', () => {
  it.each<{ name: string; headers: Record<string, string>; status: number }>([
    { name: 'no signature', headers: {}, status: 401 },
    {
      name: 'a wrong signature',
      headers: { 'x-line-signature': signBody('{"events":[]}', 'another-secret') },
      status: 401,
    },
    {
      name: 'a signature of another body',
      headers: { 'x-line-signature': signBody('{"events":[{}]}', CHANNEL_SECRET) },
      status: 401,
    },
  ])('answers $name with $status and processes nothing', async ({ headers, status }) => {
    running = await startKaiwaWithFakeLine({ model: echo() });
    const body = JSON.stringify({
      destination: running.line.emulator.botUserId,
      events: [textEvent(running.line, { type: 'user', userId: USER }, 'hi')],
    });

    const response = await running.post(body, headers);

    expect(response.status).toBe(status);
    await running.kaiwa.host.whenSettled();
    expect(sentToLine()).toEqual([]);
  });

  it('answers malformed JSON with a valid signature with 400', async () => {
    running = await startKaiwaWithFakeLine({ model: echo() });
    const response = await running.post('{"events": [');
    expect(response.status).toBe(400);
  });

  it('answers a body that is valid JSON without events with 400', async () => {
    running = await startKaiwaWithFakeLine({ model: echo() });
    const response = await running.post('{"destination":"U1"}');
    expect(response.status).toBe(400);
  });

  it.each([
    { bytes: MAX_WEBHOOK_BYTES, status: 200 },
    { bytes: MAX_WEBHOOK_BYTES + 1, status: 413 },
  ])('answers a body of $bytes bytes (limit 1 MiB) with $status', async ({ bytes, status }) => {
    running = await startKaiwaWithFakeLine({ model: echo() });
    const response = await running.post(webhookBodyOfSize(bytes));
    expect(response.status).toBe(status);
  });

  it("answers empty events (LINE's verification request) with 200", async () => {
    running = await startKaiwaWithFakeLine({ model: echo() });
    const response = await running.post(
      JSON.stringify({ destination: running.line.emulator.botUserId, events: [] }),
    );
    expect(response.status).toBe(200);
  });

  it('ignores event types it does not handle, with 200', async () => {
    running = await startKaiwaWithFakeLine({ model: echo() });
    const futureMessage = {
      ...textEvent(running.line, { type: 'user', userId: USER }, 'x'),
      message: { type: 'hologram', id: '1' },
    };
    const beacon = {
      type: 'futureEventType',
      mode: 'active',
      timestamp: 1,
      webhookEventId: 'x',
      source: { type: 'user', userId: USER },
    };

    const response = await running.post(
      JSON.stringify({ destination: running.line.emulator.botUserId, events: [futureMessage, beacon] }),
    );

    expect(response.status).toBe(200);
    await running.kaiwa.host.whenSettled();
    expect(sentToLine()).toEqual([]);
  });

  it.each([
    ['a user', { type: 'user' as const, userId: USER }, USER],
    ['a group', { type: 'group' as const, groupId: GROUP, userId: USER }, GROUP],
    ['a room', { type: 'room' as const, roomId: ROOM, userId: USER }, ROOM],
  ])(
    'replies to a signed text message from %s; the request is a valid ReplyMessageRequest',
    async (_case, source, sourceId) => {
      running = await startKaiwaWithFakeLine({ model: echo() });
      const event = textEvent(running.line, source, 'hello kaiwa');

      const response = await running.post(
        JSON.stringify({ destination: running.line.emulator.botUserId, events: [event] }),
      );
      expect(response.status).toBe(200);
      const reply = await until(() =>
        running!.line.requests.find((request) => request.path === '/v2/bot/message/reply'),
      );

      expect(reply.body).toMatchObject({
        replyToken: event.replyToken,
        messages: [{ type: 'text', text: 're: hello kaiwa' }],
      });
      expect(reply.schemaProblems).toEqual([]);
      const schemas = await LineSchemas.load();
      expect(schemas.validateSchema('messaging-api', 'ReplyMessageRequest', reply.body)).toEqual({
        ok: true,
      });
      expect(
        running.line.emulator
          .entries()
          .filter((entry) => entry.from === 'bot')
          .map((entry) => entry.chatId),
      ).toEqual([sourceId]);
    },
  );

  it('answers 200 before the turn has run', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    running = await startKaiwaWithFakeLine({
      model: new ScriptedModel([async () => (await gate, callReply('finally'))]),
    });
    const event = textEvent(running.line, { type: 'user', userId: USER }, 'take your time');

    const response = await running.post(
      JSON.stringify({ destination: running.line.emulator.botUserId, events: [event] }),
    );

    expect(response.status).toBe(200);
    expect(sentToLine()).toEqual([]);
    release();
    await until(() => running!.line.requests.find((request) => request.path === '/v2/bot/message/reply'));
  });

  it('ignores a redelivered event it already accepted', async () => {
    const model = echo();
    running = await startKaiwaWithFakeLine({ model });
    const event = textEvent(running.line, { type: 'user', userId: USER }, 'once');
    const body = JSON.stringify({ destination: running.line.emulator.botUserId, events: [event] });

    await running.post(body);
    await running.kaiwa.host.whenSettled();
    const again = await running.post(
      JSON.stringify({
        destination: running.line.emulator.botUserId,
        events: [{ ...event, deliveryContext: { isRedelivery: true } }],
      }),
    );
    await running.kaiwa.host.whenSettled();

    expect(again.status).toBe(200);
    expect(model.calls).toHaveLength(1);
    expect(running.line.requestsTo('/v2/bot/message/reply')).toHaveLength(1);
  });

  it('answers 500 when the events cannot be stored, so LINE redelivers', async () => {
    const store = new MemorySourceStore();
    store.accept = () => Promise.reject(new Error('disk full'));
    running = await startKaiwaWithFakeLine({ model: echo(), store });
    const event = textEvent(running.line, { type: 'user', userId: USER }, 'lost?');

    const response = await running.post(
      JSON.stringify({ destination: running.line.emulator.botUserId, events: [event] }),
    );

    expect(response.status).toBe(500);
  });

  it('answers 500 when storing takes longer than its budget, and the redelivery is taken once', async () => {
    const model = echo();
    const store = new MemorySourceStore();
    const accept = store.accept.bind(store);
    let slow = true;
    store.accept = async (...args) => {
      // Storage stalls past the budget once; the write still lands, late.
      if (slow) await new Promise((resolve) => setTimeout(resolve, 1_000));
      slow = false;
      return accept(...args);
    };
    running = await startKaiwaWithFakeLine({
      model,
      store,
      env: { KAIWA_WEBHOOK_ACCEPT_DEADLINE_MS: '200' },
    });
    const event = textEvent(running.line, { type: 'user', userId: USER }, 'slow disk');
    const body = JSON.stringify({ destination: running.line.emulator.botUserId, events: [event] });

    const started = Date.now();
    const first = await running.post(body);
    const waited = Date.now() - started;
    expect(first.status).toBe(500); // LINE redelivers
    expect(waited).toBeLessThan(900);

    await until(() => !slow);
    const again = await running.post(
      JSON.stringify({
        destination: running.line.emulator.botUserId,
        events: [{ ...event, deliveryContext: { isRedelivery: true } }],
      }),
    );
    expect(again.status).toBe(200);
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 1);
    await running.kaiwa.host.whenSettled();
    expect(model.calls).toHaveLength(1); // the claim made the redelivery harmless
  });
});

describe('stale and misdirected events (docs/security.md)', () => {
  const HOUR = 3_600_000;

  it('stores a message hours old as quiet context: no model call, no reply, no push', async () => {
    const model = echo();
    const store = new MemorySourceStore();
    running = await startKaiwaWithFakeLine({ model, store });
    const old = { ...textEvent(running.line, { type: 'user', userId: USER }, 'are you there?') };
    old.timestamp = Date.now() - 4 * HOUR; // beyond the default of 3 hours

    const response = await running.post(
      JSON.stringify({ destination: running.line.emulator.botUserId, events: [old] }),
    );
    expect(response.status).toBe(200);
    await running.kaiwa.host.whenSettled();

    expect(model.calls).toEqual([]);
    expect(sentToLine().filter((request) => request.path.startsWith('/v2/bot/message/'))).toEqual([]);
    expect(await store.inbox(USER)).toEqual([]); // taken in, as history

    // The next fresh message is answered, with the stale one in the model's context.
    const fresh = textEvent(running.line, { type: 'user', userId: USER }, 'hello again');
    await running.post(JSON.stringify({ destination: running.line.emulator.botUserId, events: [fresh] }));
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 1);
    expect(running.line.requestsTo('/v2/bot/message/reply')[0]?.body).toMatchObject({
      messages: [{ text: 're: hello again' }],
    });
    expect(model.calls[0]?.history.filter((entry) => entry.role === 'user').map(userText)).toEqual([
      'are you there?',
      'hello again',
    ]);
    expect(running.line.requestsTo('/v2/bot/message/push')).toEqual([]);
  });

  it('stores a standby event as context and never answers it: no model call, no reply, push or loading', async () => {
    const model = echo();
    const store = new MemorySourceStore();
    running = await startKaiwaWithFakeLine({ model, store, env: { KAIWA_LOADING_DELAY_MS: '0' } });
    // Another channel holds the chat (LINE's module channels): the bot must not send.
    const standby = { ...textEvent(running.line, { type: 'user', userId: USER }, 'for the other channel') };
    standby.mode = 'standby';
    delete (standby as { replyToken?: string }).replyToken; // LINE sends none in standby

    const response = await running.post(
      JSON.stringify({ destination: running.line.emulator.botUserId, events: [standby] }),
    );
    expect(response.status).toBe(200);
    await running.kaiwa.host.whenSettled();

    expect(model.calls).toEqual([]);
    expect(
      sentToLine().filter(
        (request) => request.path.startsWith('/v2/bot/message/') || request.path.startsWith('/v2/bot/chat/'),
      ),
    ).toEqual([]);
    expect(await store.inbox(USER)).toEqual([]); // taken in, as history

    const active = textEvent(running.line, { type: 'user', userId: USER }, 'back to you');
    await running.post(JSON.stringify({ destination: running.line.emulator.botUserId, events: [active] }));
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 1);
    expect(model.calls[0]?.history.filter((entry) => entry.role === 'user').map(userText)).toEqual([
      'for the other channel',
      'back to you',
    ]);
  });

  it('takes its age from KAIWA_STALE_EVENT_MS, and still applies an old unfollow', async () => {
    const model = echo();
    const store = new MemorySourceStore();
    running = await startKaiwaWithFakeLine({ model, store, env: { KAIWA_STALE_EVENT_MS: '60000' } });
    const twoMinutesOld = { ...textEvent(running.line, { type: 'user', userId: USER }, 'late') };
    twoMinutesOld.timestamp = Date.now() - 2 * 60_000;
    const halfAMinuteOld = {
      ...textEvent(running.line, { type: 'user', userId: ROOM.replace('R', 'U') }, 'recent'),
    };
    halfAMinuteOld.timestamp = Date.now() - 30_000;

    await running.post(
      JSON.stringify({
        destination: running.line.emulator.botUserId,
        events: [twoMinutesOld, halfAMinuteOld],
      }),
    );
    await running.kaiwa.host.whenSettled();
    expect(model.calls.map((call) => call.history.map(userText).filter(Boolean))).toEqual([['recent']]);
    const unfollow = {
      type: 'unfollow',
      mode: 'active',
      timestamp: Date.now() - 10 * HOUR,
      source: { type: 'user', userId: USER },
      webhookEventId: '01HTESTUNFOLLOW00000000000',
      deliveryContext: { isRedelivery: true },
    };
    await running.post(JSON.stringify({ destination: running.line.emulator.botUserId, events: [unfollow] }));
    await running.kaiwa.host.whenSettled();
    // The unfollow applied: the stale message left with the rest of the conversation.
    const back = textEvent(running.line, { type: 'user', userId: USER }, 'back again');
    await running.post(JSON.stringify({ destination: running.line.emulator.botUserId, events: [back] }));
    await running.kaiwa.host.whenSettled();
    expect(model.calls.at(-1)?.history.map(userText).filter(Boolean)).toEqual(['back again']);
  });

  it('refuses an event older than event ids are kept as a possible replay: an unfollow of 8 days ago forgets nothing', async () => {
    // A signed body is valid forever: one captured and posted again after its event id's claim
    // expired (7 days) passed as new — an unfollow deleted the chat's history, a message was
    // stored a second time.
    const model = echo();
    const store = new MemorySourceStore();
    const { logger, lines } = recordingLogger();
    running = await startKaiwaWithFakeLine({ model, store, overrides: { logger } });
    const hello = textEvent(running.line, { type: 'user', userId: USER }, 'remember me');
    await running.post(JSON.stringify({ destination: running.line.emulator.botUserId, events: [hello] }));
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 1);
    await running.kaiwa.host.whenSettled();

    const eightDaysAgo = Date.now() - 8 * 24 * HOUR;
    const replayedUnfollow = {
      type: 'unfollow',
      mode: 'active',
      timestamp: eightDaysAgo,
      source: { type: 'user', userId: USER },
      webhookEventId: '01HTESTREPLAYEDUNFOLLOW000',
      deliveryContext: { isRedelivery: false },
    };
    const replayedMessage = { ...textEvent(running.line, { type: 'user', userId: USER }, 'said before') };
    replayedMessage.timestamp = eightDaysAgo;
    const response = await running.post(
      JSON.stringify({
        destination: running.line.emulator.botUserId,
        events: [replayedMessage, replayedUnfollow],
      }),
    );
    expect(response.status).toBe(200);
    await running.kaiwa.host.whenSettled();

    const again = textEvent(running.line, { type: 'user', userId: USER }, 'still there?');
    await running.post(JSON.stringify({ destination: running.line.emulator.botUserId, events: [again] }));
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 2);
    expect(model.calls.at(-1)?.history.map(userText).filter(Boolean)).toEqual([
      'remember me',
      'still there?',
    ]);
    expect(
      lines.filter((line) => line.message === 'webhook event too old to tell from a replay: refused'),
    ).toEqual([
      expect.objectContaining({ level: 'warn', eventId: replayedMessage.webhookEventId, type: 'message' }),
      expect.objectContaining({ level: 'warn', eventId: replayedUnfollow.webhookEventId, type: 'unfollow' }),
    ]);
  });

  it('refuses a body for another bot with 200: nothing stored, nothing answered, a warning', async () => {
    const model = echo();
    const store = new MemorySourceStore();
    const { logger, lines } = recordingLogger();
    running = await startKaiwaWithFakeLine({ model, store, overrides: { logger } });
    const otherBot = 'U' + 'e'.repeat(32);
    const event = textEvent(running.line, { type: 'user', userId: USER }, 'for someone else');

    const response = await running.post(JSON.stringify({ destination: otherBot, events: [event] }));

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: 'destination is not this bot: nothing processed' });
    await running.kaiwa.host.whenSettled();
    expect(model.calls).toEqual([]);
    expect(await store.inbox(USER)).toEqual([]);
    expect((await store.load(USER, { maxEntries: 200, maxBytes: 1 << 20 })).head).toBeUndefined();
    expect(sentToLine()).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        destination: otherBot,
        botUserId: running.line.emulator.botUserId,
      }),
    );
    expect(JSON.stringify(lines)).not.toContain('for someone else');

    // The right destination is answered; LINE was asked who the bot is once for both.
    const right = textEvent(running.line, { type: 'user', userId: USER }, 'for you');
    await running.post(JSON.stringify({ destination: running.line.emulator.botUserId, events: [right] }));
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 1);
    expect(running.line.requestsTo('/v2/bot/info')).toHaveLength(1);
  });

  it('accepts unchecked while LINE cannot say who the bot is, and asks again next time', async () => {
    const model = echo();
    const line = await startFakeLine();
    // Failing at start (warm) and for the first webhook.
    line.failNext('/v2/bot/info', 500, { message: 'internal error' }, 2);
    const { logger, lines } = recordingLogger();
    const kaiwa = await startKaiwa(
      loadConfig({
        PORT: '0',
        STORE: 'memory',
        LINE_CHANNEL_SECRET: CHANNEL_SECRET,
        LINE_CHANNEL_ACCESS_TOKEN: line.emulator.channelAccessToken,
        LINE_API_BASE_URL: line.url,
      }),
      { model, store: new MemorySourceStore(), logger },
    );
    try {
      const post = (events: unknown[]) => {
        const body = JSON.stringify({ destination: 'U' + 'e'.repeat(32), events });
        return fetch(`${kaiwa.url}/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-line-signature': signBody(body, CHANNEL_SECRET) },
          body,
        });
      };
      await until(() => lines.some((line) => String(line.message).includes('bot user id lookup failed')));
      expect((await post([textEvent(line, { type: 'user', userId: USER }, 'one')])).status).toBe(200);
      await kaiwa.host.whenSettled();
      expect(model.calls).toHaveLength(1);
      // LINE answers now: the wrong destination is refused.
      expect((await post([textEvent(line, { type: 'user', userId: USER }, 'two')])).status).toBe(200);
      await kaiwa.host.whenSettled();
      expect(model.calls).toHaveLength(1);
      expect(line.requestsTo('/v2/bot/info')).toHaveLength(3);
    } finally {
      await kaiwa.close();
      await line.close();
    }
  });

  it("in emulator mode, the emulator's bot is the destination", async () => {
    const model = echo();
    const kaiwa = await startKaiwa(loadConfig({ PORT: '0', STORE: 'memory' }), {
      model,
      store: new MemorySourceStore(),
      logger: silentLogger,
    });
    try {
      const emulator = kaiwa.emulator!;
      const post = (destination: string) => {
        const event = textEvent({ emulator }, { type: 'user', userId: USER }, 'hi');
        const body = JSON.stringify({ destination, events: [event] });
        return fetch(`${kaiwa.url}/webhook`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-line-signature': signBody(body, emulator.channelSecret),
          },
          body,
        });
      };
      await post('U' + 'e'.repeat(32));
      await kaiwa.host.whenSettled();
      expect(model.calls).toEqual([]);
      await post(emulator.botUserId);
      await kaiwa.host.whenSettled();
      expect(model.calls).toHaveLength(1);
    } finally {
      await kaiwa.close();
    }
  });
});

describe('delivery through the runtime (docs/line.md, "Delivery policy")', () => {
  it.each([
    ['answered 500', { kind: 'status', status: 500 } as const],
    ['cut by a dropped connection', { kind: 'drop' } as const],
  ])('a reply %s but delivered is shown once and never pushed', async (_name, fault) => {
    const model = echo();
    running = await startKaiwaWithFakeLine({ model });
    running.line.inject('/v2/bot/message/reply', fault, 'after');
    const event = textEvent(running.line, { type: 'user', userId: USER }, 'once please');

    await running.post(JSON.stringify({ destination: running.line.emulator.botUserId, events: [event] }));
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 2);
    await running.kaiwa.host.whenSettled();

    expect(running.line.requestsTo('/v2/bot/message/push')).toEqual([]);
    expect(running.line.shown().map((entry) => entry.text)).toEqual(['re: once please']);
    expect(model.calls).toHaveLength(1);
  });
});
