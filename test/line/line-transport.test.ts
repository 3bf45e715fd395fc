import { HTTPFetchError } from '@line/bot-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LineApiError } from '../../src/line/line-api-error.js';
import { LineRequestError } from '../../src/line/line-request-error.js';
import { LineTransport } from '../../src/line/line-transport.js';
import { createMessagingApiClient, scopedClient } from '../../src/line/sdk-http-client.js';
import { createLogger } from '../../src/logging/index.js';
import { startHostileServer, type HostileBehaviour } from '../support/hostile-http-server.js';

const ACCESS_TOKEN = 'access-token-that-must-never-be-logged';
const REPLY_TOKEN = 'reply-token-that-must-never-be-logged';
const TEXT = 'private words the user typed';
const MARKER = 'proxy-echo-3f9a';
const USER = 'U' + '1'.repeat(32);

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
  process.off('unhandledRejection', onUnhandled);
  await server?.close();
  server = undefined;
});

async function clientFor(behaviour: (path: string) => HostileBehaviour, timeoutMs = 10_000) {
  server = await startHostileServer((request) => behaviour(request.path));
  const transport = new LineTransport({
    logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
    timeoutMs,
  });
  const client = createMessagingApiClient(transport, {
    channelAccessToken: ACCESS_TOKEN,
    baseURL: server.url,
  });
  return { transport, client, server };
}

const reply = (client: Awaited<ReturnType<typeof clientFor>>['client']) =>
  client.replyMessage({ replyToken: REPLY_TOKEN, messages: [{ type: 'text', text: TEXT }] });

const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** Lets any stray rejection surface before the test looks for it. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('the LINE transport under @line/bot-sdk', () => {
  it('sends what the SDK sends: the path, the JSON body, the token, the retry key and query strings', async () => {
    const { client, server } = await clientFor(() => ({
      kind: 'serve',
      contentType: 'application/json',
      body: Buffer.from('{"sentMessages":[]}'),
    }));

    await client.pushMessage({ to: USER, messages: [{ type: 'text', text: 'hi' }] }, 'retry-key-1');
    await client.getFollowers('next-page', 10);

    const [push, followers] = server.requests;
    expect(push).toMatchObject({
      method: 'POST',
      path: '/v2/bot/message/push',
      headers: {
        authorization: `Bearer ${ACCESS_TOKEN}`,
        'content-type': 'application/json',
        'x-line-retry-key': 'retry-key-1',
      },
    });
    expect(JSON.parse(push!.body)).toEqual({ to: USER, messages: [{ type: 'text', text: 'hi' }] });
    expect(followers).toMatchObject({
      method: 'GET',
      path: '/v2/bot/followers/ids?start=next-page&limit=10',
    });
  });

  it('logs every call at debug with its status and request id', async () => {
    const { client } = await clientFor(() => ({
      kind: 'serve',
      contentType: 'application/json',
      body: Buffer.from('{"displayName":"Aiko","userId":"x"}'),
    }));

    expect(await client.getProfile(USER)).toMatchObject({ displayName: 'Aiko' });

    expect(parsed()).toEqual([
      expect.objectContaining({
        level: 'debug',
        message: 'LINE call',
        operation: `GET /v2/bot/profile/${USER}`,
        status: 200,
        requestId: 'req-1',
      }),
    ]);
  });

  it('ends a call LINE never answers at its timeout', async () => {
    const { client } = await clientFor(() => ({ kind: 'hang' }), 200);
    const started = Date.now();

    await expect(reply(client)).rejects.toMatchObject({ name: 'LineRequestError', reason: 'timeout' });

    expect(Date.now() - started).toBeLessThan(3000);
    expect(parsed()).toContainEqual(
      expect.objectContaining({ level: 'warn', operation: 'POST /v2/bot/message/reply', reason: 'timeout' }),
    );
  });

  it("ends a call in flight when the turn's signal aborts", async () => {
    const { client } = await clientFor(() => ({ kind: 'hang' }));
    const turn = new AbortController();

    const call = reply(scopedClient(client, { signal: turn.signal }));
    setTimeout(() => turn.abort(new Error('turn over')), 50);

    await expect(call).rejects.toMatchObject({ name: 'LineRequestError', reason: 'aborted' });
    // The turn ended it on purpose: not a LINE failure.
    expect(parsed().filter((line) => line.level === 'warn')).toEqual([]);
  });

  it('turns a connection dropped mid-answer into a LineRequestError, never an unhandled rejection', async () => {
    const { client } = await clientFor(() => ({
      kind: 'drop-mid-body',
      contentType: 'application/json',
      declaredBytes: 1000,
      sentBytes: 10,
    }));

    await expect(reply(client)).rejects.toMatchObject({ name: 'LineRequestError', reason: 'network' });
    await settle();

    expect(unhandled).toEqual([]);
  });

  it('refuses an answer larger than any LINE sends', async () => {
    server = await startHostileServer(() => ({
      kind: 'serve',
      contentType: 'application/json',
      body: Buffer.alloc(2048, 0x20),
    }));
    const transport = new LineTransport({ logger: createLogger({ level: 'silent' }), maxAnswerBytes: 1024 });

    await expect(transport.call(new URL('/v2/bot/info', server.url))).rejects.toMatchObject({
      reason: 'too-large',
    });
  });

  it('answers with the status, headers and text a client reads, over http and over fetch alike', async () => {
    server = await startHostileServer(() => ({
      kind: 'serve',
      contentType: 'application/json',
      body: Buffer.from('{"userId":"U1","displayName":"あ"}'),
    }));
    const transport = new LineTransport({ logger: createLogger({ level: 'silent' }) });
    const url = new URL('/v2/bot/info', server.url);

    for (const init of [{}, { method: 'POST', body: new Blob(['x']) }]) {
      const answer = await transport.call(url, init);
      expect({ ok: answer.ok, status: answer.status }).toEqual({ ok: true, status: 200 });
      expect(answer.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(await answer.text())).toEqual({ userId: 'U1', displayName: 'あ' });
    }
  });

  it('cuts off an answer without a content-length once it grows past the cap, never reading on', async () => {
    server = await startHostileServer(() => ({
      kind: 'drip',
      contentType: 'application/json',
      intervalMs: 1,
    }));
    const transport = new LineTransport({ logger: createLogger({ level: 'silent' }), maxAnswerBytes: 64 });
    const started = Date.now();

    await expect(transport.call(new URL('/v2/bot/info', server.url))).rejects.toMatchObject({
      reason: 'too-large',
    });
    // The drip never ends: only the cap ended the call, long before the 10 s timeout.
    expect(Date.now() - started).toBeLessThan(5000);
    await settle();
    expect(unhandled).toEqual([]);
  });

  it.each([400, 500])(
    'throws the SDK error for %i with status and request id, and logs neither its body nor the request',
    async (status) => {
      const { client } = await clientFor(() => ({ kind: 'echo', status, marker: MARKER }));

      const error = await reply(client).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(HTTPFetchError);
      expect(error).toBeInstanceOf(LineApiError);
      expect(error).toMatchObject({ status, requestId: 'req-1' });
      // The body is still there for the callers that classify it ("Invalid reply token")…
      expect(String((error as LineApiError).body)).toContain(MARKER);
      // …but nothing that is printed or serialised carries it.
      const printed = [
        (error as Error).message,
        (error as Error).stack,
        JSON.stringify(error),
        ...lines,
      ].join('\n');
      for (const secret of [MARKER, REPLY_TOKEN, TEXT, ACCESS_TOKEN]) expect(printed).not.toContain(secret);
      expect(parsed()).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          message: 'LINE call failed',
          operation: 'POST /v2/bot/message/reply',
          status,
          requestId: 'req-1',
        }),
      );
    },
  );

  it('logs an expected status (404 for a user who left) at debug only', async () => {
    const { client } = await clientFor(() => ({ kind: 'echo', status: 404, marker: MARKER }));

    await expect(scopedClient(client, { expectedStatuses: [404] }).getProfile(USER)).rejects.toThrow(
      LineApiError,
    );

    expect(parsed().map((line) => line.level)).toEqual(['debug']);
  });

  it('names the operation and reason in a LineRequestError, and keeps the cause', async () => {
    const { client } = await clientFor(() => ({ kind: 'hang' }), 100);
    const error = (await reply(client).catch((caught: unknown) => caught)) as LineRequestError;
    expect(error.message).toBe('LINE POST /v2/bot/message/reply: no answer within 100 ms');
    expect(error.cause).toBeDefined();
  });
});
