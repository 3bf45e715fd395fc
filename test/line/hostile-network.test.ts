import { botUserId } from '../support/webhook-fixtures.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, textOnly } from '../../src/model/index.js';
import { startHostileServer, pngBytes, type HostileBehaviour } from '../support/hostile-http-server.js';
import { startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';
import { until } from '../support/until.js';

const USER = 'U' + '7'.repeat(32);
const MARKER = 'proxy-echo-77c1';

let running: Awaited<ReturnType<typeof startKaiwaWithFakeLine>> | undefined;
let server: Awaited<ReturnType<typeof startHostileServer>> | undefined;
let lines: string[];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeEach(() => {
  lines = [];
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  await running?.close();
  await server?.close();
  running = undefined;
  server = undefined;
  process.off('unhandledRejection', onUnhandled);
});

let sequence = 0;
function imageEvent(messageId: string) {
  sequence++;
  return {
    type: 'message',
    mode: 'active',
    timestamp: Date.now(),
    source: { type: 'user', userId: USER },
    webhookEventId: `01HOSTILE${String(sequence).padStart(17, '0')}`,
    deliveryContext: { isRedelivery: false },
    replyToken: `image-reply-token-${sequence}`,
    message: { type: 'image', id: messageId, quoteToken: `q-${sequence}`, contentProvider: { type: 'line' } },
  };
}

/** kaiwa whose content API is `behaviour`'s server, with a model that records the images it got. */
async function kaiwaWithContentServer(behaviour: HostileBehaviour, env: Record<string, string> = {}) {
  server = await startHostileServer(() => behaviour);
  const model = new ScriptedModel([callReply('I looked')], { repeatLast: true });
  const logger = createLogger({ level: 'info', write: (line) => lines.push(line) });
  running = await startKaiwaWithFakeLine({
    model,
    env: { LINE_DATA_API_BASE_URL: server.url, ...env },
    overrides: { logger },
  });
  const send = async () => {
    const response = await running!.post(
      JSON.stringify({ destination: botUserId, events: [imageEvent('9001')] }),
    );
    expect(response.status).toBe(200);
  };
  return { model, send };
}

const leftOut = () =>
  lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message === 'image left out');

describe('image downloads from a hostile content server', () => {
  it('survives a connection dropped mid-image: the turn goes on without it', async () => {
    const { model, send } = await kaiwaWithContentServer({
      kind: 'drop-mid-body',
      contentType: 'image/jpeg',
      declaredBytes: 5 * 1024 * 1024,
      sentBytes: 64 * 1024,
    });

    await send();
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(unhandled).toEqual([]);
    expect(model.calls[0]?.media).toEqual([]);
    expect(leftOut()).toEqual([
      expect.objectContaining({ level: 'warn', reason: 'network', requestId: 'req-1' }),
    ]);
  });

  it('ends a download that drips one byte every 2 s at its timeout, and answers', async () => {
    const { model, send } = await kaiwaWithContentServer(
      { kind: 'drip', contentType: 'image/png', intervalMs: 2000 },
      { KAIWA_MEDIA_TIMEOUT_MS: '1000' },
    );
    const started = Date.now();

    await send();
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 1, 10_000);

    expect(Date.now() - started).toBeLessThan(6000);
    expect(model.calls[0]?.media).toEqual([]);
    expect(leftOut()).toEqual([expect.objectContaining({ reason: 'timeout', timeoutMs: 1000 })]);
  });

  it.each([
    ['text/html', 'text/html; charset=utf-8', Buffer.from('<html><body>not an image</body></html>')],
    [
      'image/svg+xml',
      'image/svg+xml',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'),
    ],
    ['HTML sent as image/png', 'image/png', Buffer.from('<html><body>pretending</body></html>')],
    ['a GIF (not a type Gemini documents)', 'image/gif', Buffer.from('GIF89a' + '\0'.repeat(32))],
  ])('refuses %s: the model never sees it', async (_case, contentType, body) => {
    const { model, send } = await kaiwaWithContentServer({ kind: 'serve', contentType, body });

    await send();
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 1);

    expect(model.calls[0]?.media).toEqual([]);
    expect(leftOut()).toEqual([expect.objectContaining({ reason: 'content-type' })]);
  });

  it('gives a real PNG to the model', async () => {
    const png = pngBytes(2048);
    const { model, send } = await kaiwaWithContentServer({
      kind: 'serve',
      contentType: 'image/png',
      body: png,
    });

    await send();
    await until(() => running!.line.requestsTo('/v2/bot/message/reply').length === 1);

    expect(model.calls[0]?.media).toEqual([
      expect.objectContaining({ mimeType: 'image/png', data: png.toString('base64') }),
    ]);
  });
});

describe('a LINE API that fails', () => {
  it('logs status and request id of a 400 or 500 — never its body, the reply token, the text or the access token', async () => {
    const text = 'the user wrote something private';
    server = await startHostileServer((request) => ({
      kind: 'echo',
      status: request.path.startsWith('/v2/bot/message/reply') ? 400 : 500,
      marker: MARKER,
    }));
    running = await startKaiwaWithFakeLine({
      model: new ScriptedModel([callReply(`about "${text}"`)], { repeatLast: true }),
      env: { LINE_API_BASE_URL: server.url, KAIWA_LOADING_DELAY_MS: '0' },
      overrides: { logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }) },
    });
    const event = textEvent(running.line, { type: 'user', userId: USER }, text);

    await running.post(JSON.stringify({ destination: botUserId, events: [event] }));
    await until(
      () => server!.requests.filter((request) => request.path === '/v2/bot/message/push').length >= 2,
    );
    await running.kaiwa.host.whenSettled();

    expect(server.requests.some((request) => request.body.includes(event.replyToken))).toBe(true);
    for (const secret of [MARKER, event.replyToken, running.line.emulator.channelAccessToken]) {
      expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    }
    const atInfoOrAbove = lines.filter((line) => !line.includes('"level":"debug"'));
    expect(atInfoOrAbove.filter((line) => line.includes(text))).toEqual([]);
    const failures = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(failures).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        operation: 'POST /v2/bot/message/push',
        status: 500,
      }),
    );
    expect(failures).toContainEqual(
      expect.objectContaining({
        operation: 'POST /v2/bot/message/reply',
        status: 400,
        requestId: expect.stringMatching(/^req-\d+$/) as string,
      }),
    );
  });

  it('does not let a LINE that never answers hold the turn: the call ends at its timeout', async () => {
    server = await startHostileServer(() => ({ kind: 'hang' }));
    running = await startKaiwaWithFakeLine({
      // One reply, then the model gives up: the reply's one retry and the push's attempts each
      // end at the timeout (docs/line.md, "Delivery policy").
      model: new ScriptedModel([callReply('hello'), textOnly('could not reach the user')]),
      env: { LINE_API_BASE_URL: server.url, KAIWA_LINE_TIMEOUT_MS: '300' },
      overrides: { logger: createLogger({ level: 'info', write: (line) => lines.push(line) }) },
    });
    const started = Date.now();

    await running.post(
      JSON.stringify({
        destination: botUserId,
        events: [textEvent(running.line, { type: 'user', userId: USER }, 'anyone there?')],
      }),
    );
    await running.kaiwa.host.whenSettled();

    expect(Date.now() - started).toBeLessThan(15_000);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({
        message: 'LINE call got no answer',
        operation: 'POST /v2/bot/message/reply',
        reason: 'timeout',
      }),
    );
  });
});
