import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import { LineSchemas } from '../../src/line/openapi/line-schemas.js';
import { ScriptedModel, callReply, type ModelRequest } from '../../src/model/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import { signBody } from '../../src/line/emulator/webhook-sender.js';
import { MAX_WEBHOOK_BYTES } from '../../src/line/webhook-handling.js';
import { CHANNEL_SECRET, startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';
import { webhookBodyOfSize } from '../support/sized-webhook-body.js';
import { until } from '../support/until.js';

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
      destination: 'Ubot',
      events: [textEvent(running.line, { type: 'user', userId: USER }, 'hi')],
    });

    const response = await running.post(body, headers);

    expect(response.status).toBe(status);
    await running.kaiwa.host.whenSettled();
    expect(running.line.requests).toEqual([]);
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
    const response = await running.post(JSON.stringify({ destination: 'Ubot', events: [] }));
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
      JSON.stringify({ destination: 'Ubot', events: [futureMessage, beacon] }),
    );

    expect(response.status).toBe(200);
    await running.kaiwa.host.whenSettled();
    expect(running.line.requests).toEqual([]);
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

      const response = await running.post(JSON.stringify({ destination: 'Ubot', events: [event] }));
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

    const response = await running.post(JSON.stringify({ destination: 'Ubot', events: [event] }));

    expect(response.status).toBe(200);
    expect(running.line.requests).toEqual([]);
    release();
    await until(() => running!.line.requests.find((request) => request.path === '/v2/bot/message/reply'));
  });

  it('ignores a redelivered event it already accepted', async () => {
    const model = echo();
    running = await startKaiwaWithFakeLine({ model });
    const event = textEvent(running.line, { type: 'user', userId: USER }, 'once');
    const body = JSON.stringify({ destination: 'Ubot', events: [event] });

    await running.post(body);
    await running.kaiwa.host.whenSettled();
    const again = await running.post(
      JSON.stringify({
        destination: 'Ubot',
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

    const response = await running.post(JSON.stringify({ destination: 'Ubot', events: [event] }));

    expect(response.status).toBe(500);
  });
});
