import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaults } from '../../src/defaults/index.js';
import { LineDelivery } from '../../src/line/line-delivery.js';
import { LineTransport } from '../../src/line/line-transport.js';
import { createMessagingApiClient } from '../../src/line/sdk-http-client.js';
import { retryKeyFor } from '../../src/line/retry-key.js';
import { createLogger } from '../../src/logging/index.js';
import type { DeliveryRequest } from '../../src/machines/index.js';
import type { BackoffPolicy } from '../../src/timing/index.js';
import { startFakeLine, type LineFault } from '../support/fake-line-server.js';
import { until } from '../support/until.js';

const USER = 'U' + '1'.repeat(32);
const start = 1_800_000_000_000;
let now = start;
const clock = { now: () => now };
let line: Awaited<ReturnType<typeof startFakeLine>>;
let logLines: string[];

beforeEach(async () => {
  now = start;
  line = await startFakeLine({ clock });
  logLines = [];
});
afterEach(() => line.close());

function delivery(
  backoff: BackoffPolicy = { baseMs: 1, maxMs: 5 },
  { monthlyLimitRetryMs = 5, timeoutMs = 3_000 } = {},
) {
  const logger = createLogger({ level: 'debug', write: (entry) => logLines.push(entry) });
  const transport = new LineTransport({ logger, timeoutMs });
  const client = createMessagingApiClient(transport, {
    channelAccessToken: line.emulator.channelAccessToken,
    baseURL: line.url,
  });
  return new LineDelivery({
    client,
    clock,
    logger,
    backoff,
    monthlyLimitRetryMs,
  });
}

const logged = () => logLines.map((entry) => JSON.parse(entry) as Record<string, unknown>);

function request(overrides: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return {
    source: { kind: 'user', id: USER },
    turnId: '01HTURN0000000000000000001',
    index: 0,
    texts: ['hello'],
    replyToken: line.emulator.issueReplyToken(USER),
    replyTokenIssuedAt: now,
    ...overrides,
  };
}

const signal = new AbortController().signal;
const sentTo = (path: string) => line.requestsTo(path);

describe('LINE delivery', () => {
  it('replies with a fresh, unused token', async () => {
    expect(await delivery().deliver(request(), signal)).toMatchObject({ method: 'reply' });
    expect(sentTo('/v2/bot/message/reply')).toHaveLength(1);
    expect(sentTo('/v2/bot/message/push')).toHaveLength(0);
  });

  it("says LINE's ids of the messages it sent, by reply and by push; a reply it only infers went out has none", async () => {
    const sentIds = () =>
      line.emulator.entries().flatMap((entry) => (entry.from === 'bot' ? [entry.id] : []));
    const long = request({ texts: ['a'.repeat(4_999) + ' ' + 'b'.repeat(100)] });

    const replied = await delivery().deliver(long, signal);
    expect(replied).toEqual({ method: 'reply', sentMessageIds: sentIds() });
    expect(replied.sentMessageIds).toHaveLength(2);

    const pushed = await delivery().deliver(
      request({ replyTokenIssuedAt: now - 50_001, turnId: 'other' }),
      signal,
    );
    expect(pushed).toEqual({ method: 'push', sentMessageIds: sentIds().slice(2) });

    expect(await delivery().deliver({ ...long, resumed: true }, signal)).toEqual({ method: 'reply' });
  });

  it("keeps no more ids than it sent messages, and only plain ones, whatever LINE's answer holds", async () => {
    // They go into history: an answer of 10,000 ids, or ids of 100 KB, would bloat every later load.
    const sentMessages = [
      { id: 'x'.repeat(100_000) },
      { id: 42 },
      { id: '461230966842064897' },
      ...Array.from({ length: 10_000 }, (_, index) => ({ id: String(index) })),
    ];
    line.failNext('/v2/bot/message/reply', 200, { sentMessages });

    const receipt = await delivery().deliver(request({ texts: ['one', 'two', 'three'] }), signal);

    expect(receipt).toEqual({ method: 'reply', sentMessageIds: ['461230966842064897'] });
  });

  it("pushes with the turn's retry key once the token is older than the window", async () => {
    const old = request({ replyTokenIssuedAt: now - 50_001 });

    expect(await delivery().deliver(old, signal)).toMatchObject({ method: 'push' });

    expect(sentTo('/v2/bot/message/reply')).toHaveLength(0);
    const [push] = sentTo('/v2/bot/message/push');
    expect(push?.headers['x-line-retry-key']).toBe(retryKeyFor(old.turnId, 0));
    expect(push?.body).toMatchObject({ to: USER, messages: [{ type: 'text', text: 'hello' }] });
    expect(push?.schemaProblems).toEqual([]);
  });

  it('pushes when LINE rejects the reply token, with a stable retry key', async () => {
    const used = request();
    await delivery().deliver(used, signal); // spends the token

    expect(await delivery().deliver({ ...used, index: 1 }, signal)).toMatchObject({ method: 'push' });
    expect(await delivery().deliver({ ...used, index: 1 }, signal)).toMatchObject({ method: 'push' });

    const keys = sentTo('/v2/bot/message/push').map((push) => push.headers['x-line-retry-key']);
    expect(keys).toEqual([retryKeyFor(used.turnId, 1), retryKeyFor(used.turnId, 1)]);
    // The second push with the same key got LINE's 409 and counts as delivered: one message shown.
    expect(line.emulator.entries().filter((entry) => entry.via === 'push')).toHaveLength(1);
  });

  it('on a resumed delivery, a rejected reply token means the reply went out: recorded, not pushed', async () => {
    const used = request();
    await delivery().deliver(used, signal); // the first process sent it, then died before the marker

    expect(await delivery().deliver({ ...used, resumed: true }, signal)).toMatchObject({ method: 'reply' });

    expect(sentTo('/v2/bot/message/push')).toHaveLength(0);
    expect(line.emulator.entries().filter((entry) => entry.from === 'bot')).toHaveLength(1);
  });

  it('a reply retried after a 5xx that LINE then refuses for its token was delivered: not pushed', async () => {
    // LINE took the reply but answered 500; the retry finds the token used.
    line.failNext('/v2/bot/message/reply', 500, { message: 'Internal error' });
    const first = request();
    await delivery().deliver(first, signal); // spends the token on the retry
    line.failNext('/v2/bot/message/reply', 500, { message: 'Internal error' });

    expect(await delivery().deliver({ ...first, index: 1 }, signal)).toMatchObject({ method: 'reply' });

    expect(sentTo('/v2/bot/message/push')).toHaveLength(0);
  });

  it('never sends once the delivery was cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('the source was lost'));

    await expect(delivery().deliver(request(), controller.signal)).rejects.toThrow('the source was lost');

    expect(sentTo('/v2/bot/message/reply')).toHaveLength(0);
    expect(sentTo('/v2/bot/message/push')).toHaveLength(0);
  });

  it('retries 429 and 5xx, then succeeds', async () => {
    line.failNext('/v2/bot/message/push', 429, { message: 'Too many requests' });
    line.failNext('/v2/bot/message/push', 503, { message: 'Service unavailable' });

    expect(await delivery().deliver(request({ replyToken: undefined }), signal)).toMatchObject({
      method: 'push',
    });

    expect(sentTo('/v2/bot/message/push')).toHaveLength(3);
  });

  it("gives up after its attempts and names LINE's request id", async () => {
    line.failNext('/v2/bot/message/push', 500, { message: 'Internal error' }, 10);

    const failure = await delivery()
      .deliver(request({ replyToken: undefined }), signal)
      .catch((error: unknown) => error);

    expect(failure).toMatchObject({
      status: 500,
      requestId: sentTo('/v2/bot/message/push').at(-1)?.requestId,
    });
    expect(sentTo('/v2/bot/message/push')).toHaveLength(4);
    // Every call's request id is in the debug log.
    const pushIds = sentTo('/v2/bot/message/push').map((push) => push.requestId);
    expect(
      logged()
        .filter((entry) => entry.message === 'LINE call failed')
        .map((entry) => entry.requestId),
    ).toEqual(pushIds);
  });

  it('stops waiting for a retry as soon as the turn is cancelled', async () => {
    line.failNext('/v2/bot/message/push', 503, { message: 'Service unavailable' });
    const turn = new AbortController();
    const reason = new Error('the actor stopped');
    // A ten-minute backoff: only the abort can end this delivery within the test's time.
    const sender = delivery({ baseMs: 600_000, maxMs: 600_000, random: () => 0.5 });

    const outcome = sender.deliver(request({ replyToken: undefined }), turn.signal).catch((e: unknown) => e);
    await until(() => logLines.some((entry) => entry.includes('retrying with the same retry key')));
    turn.abort(reason);

    expect(await outcome).toBe(reason);
    expect(sentTo('/v2/bot/message/push')).toHaveLength(1);
  }, 3_000);

  it('retries the monthly-limit 429 three times with the same key, then counts and logs it', async () => {
    line.failNext('/v2/bot/message/push', 429, { message: 'You have reached your monthly limit.' }, 10);
    const sender = delivery(undefined, { monthlyLimitRetryMs: 7 });

    await expect(sender.deliver(request({ replyToken: undefined }), signal)).rejects.toMatchObject({
      status: 429,
    });

    const pushes = sentTo('/v2/bot/message/push');
    expect(pushes).toHaveLength(4);
    expect(new Set(pushes.map((push) => push.headers['x-line-retry-key'])).size).toBe(1);
    expect(sender.monthlyQuotaRefusals).toBe(1);
    expect(logged().filter((entry) => entry.retryInMs === 7)).toHaveLength(3);
    expect(logged()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: expect.stringContaining('monthly message limit') as string,
      }),
    );
  });

  it('delivers once the monthly limit lifts within its retries, without counting it', async () => {
    line.failNext('/v2/bot/message/push', 429, { message: 'You have reached your monthly limit.' }, 2);
    const sender = delivery();

    expect(await sender.deliver(request({ replyToken: undefined }), signal)).toMatchObject({
      method: 'push',
    });

    expect(sentTo('/v2/bot/message/push')).toHaveLength(3);
    expect(line.shown()).toHaveLength(1);
    expect(sender.monthlyQuotaRefusals).toBe(0);
  });

  it('waits at least 10 minutes over the monthly-limit retries by default', () => {
    expect(3 * defaults.line.monthlyLimitRetryMs).toBeGreaterThanOrEqual(10 * 60_000);
  });

  it('splits a long text into at most five valid messages and quotes on the first', async () => {
    const long = 'word '.repeat(2600); // 13,000 characters

    await delivery().deliver(request({ texts: [long], quoteToken: 'q-1' }), signal);

    const [reply] = sentTo('/v2/bot/message/reply');
    const messages = (reply?.body as { messages: { text: string; quoteToken?: string }[] }).messages;
    expect(messages).toHaveLength(3);
    expect(messages.every((message) => message.text.length <= 5000)).toBe(true);
    expect(messages.map((message) => message.quoteToken)).toEqual(['q-1', undefined, undefined]);
    expect(reply?.schemaProblems).toEqual([]);
  });
});

describe('LINE delivery under faults (docs/line.md, "Delivery policy")', () => {
  const REPLY = '/v2/bot/message/reply';
  const PUSH = '/v2/bot/message/push';

  it.each<[string, LineFault]>([
    ['answered 500', { kind: 'status', status: 500 }],
    ['cut by a dropped connection', { kind: 'drop' }],
    ['never answered (timeout)', { kind: 'stall' }],
  ])('a reply %s but delivered is retried once with its token and not pushed', async (_name, fault) => {
    line.inject(REPLY, fault, 'after');

    expect(await delivery(undefined, { timeoutMs: 500 }).deliver(request(), signal)).toEqual({
      method: 'reply',
    });

    expect(sentTo(REPLY)).toHaveLength(2);
    expect(sentTo(PUSH)).toHaveLength(0);
    expect(line.shown()).toHaveLength(1);
    expect(logged()).toContainEqual(expect.objectContaining({ row: 'reply-token-used' }));
  });

  it('a reply that failed before LINE took it is delivered by its one retry', async () => {
    line.inject(REPLY, { kind: 'drop' }, 'before');

    expect(await delivery().deliver(request(), signal)).toMatchObject({ method: 'reply' });

    expect(sentTo(REPLY)).toHaveLength(2);
    expect(line.shown()).toHaveLength(1);
  });

  it.each<[string, LineFault]>([
    ['ambiguous twice', { kind: 'status', status: 503 }],
    ['answered 429', { kind: 'status', status: 429, body: { message: 'Too many requests' } }],
  ])('a reply %s goes by push with the retry key', async (name, fault) => {
    line.inject(REPLY, fault, 'before', name === 'answered 429' ? 1 : 2);

    expect(await delivery().deliver(request(), signal)).toMatchObject({ method: 'push' });

    expect(sentTo(REPLY)).toHaveLength(name === 'answered 429' ? 1 : 2);
    expect(sentTo(PUSH)).toHaveLength(1);
    expect(line.shown()).toHaveLength(1);
  });

  it('on a later try of a failed slot, a rejected reply token means delivered: not pushed', async () => {
    const first = request();
    await delivery().deliver(first, signal); // delivered, but the turn recorded a failure

    expect(await delivery().deliver({ ...first, attempt: 2 }, signal)).toMatchObject({ method: 'reply' });

    expect(sentTo(PUSH)).toHaveLength(0);
    expect(line.shown()).toHaveLength(1);
  });

  it.each<[string, LineFault]>([
    ['cut by a dropped connection', { kind: 'drop' }],
    ['answered 500', { kind: 'status', status: 500 }],
    ['never answered (timeout)', { kind: 'stall' }],
  ])('a push %s after LINE took it is retried with the same key and delivered once', async (_name, fault) => {
    line.inject(PUSH, fault, 'after');
    const sender = delivery(undefined, { timeoutMs: 500 });

    expect(await sender.deliver(request({ replyToken: undefined }), signal)).toMatchObject({
      method: 'push',
    });

    const pushes = sentTo(PUSH);
    expect(pushes.map((push) => push.headers['x-line-retry-key'])).toEqual([
      retryKeyFor('01HTURN0000000000000000001', 0),
      retryKeyFor('01HTURN0000000000000000001', 0),
    ]);
    expect(line.shown()).toHaveLength(1);
    // The 409's accepted request id names the push LINE took.
    expect(logged()).toContainEqual(
      expect.objectContaining({
        message: 'reply sent',
        row: 'push-duplicate',
        acceptedRequestId: pushes[0]?.requestId,
      }),
    );
  });

  it('a push cut before LINE took it is retried and delivered', async () => {
    line.inject(PUSH, { kind: 'drop' }, 'before', 2);

    expect(await delivery().deliver(request({ replyToken: undefined }), signal)).toMatchObject({
      method: 'push',
    });

    expect(sentTo(PUSH)).toHaveLength(3);
    expect(line.shown()).toHaveLength(1);
  });

  it('a failed slot tried again keeps its retry key: what LINE took is not shown twice', async () => {
    // Every try of the first delivery is cut after LINE took it: the turn records a failure.
    line.inject(PUSH, { kind: 'drop' }, 'after', 4);
    const slot = request({ replyToken: undefined });
    await expect(delivery().deliver(slot, signal)).rejects.toMatchObject({ reason: 'network' });

    expect(await delivery().deliver({ ...slot, attempt: 2 }, signal)).toMatchObject({ method: 'push' });

    expect(line.shown()).toHaveLength(1);
  });

  it('logs the request id of every call at debug', async () => {
    await delivery().deliver(request(), signal);
    await delivery().deliver(request({ replyToken: undefined }), signal);

    const ids = line.requests.map((sent) => sent.requestId);
    const debugIds = logged()
      .filter((entry) => entry.level === 'debug' && entry.message === 'LINE call')
      .map((entry) => entry.requestId);
    expect(debugIds).toEqual(ids);
  });

  it('resumed past the 24-hour retry-key window, warns that LINE may show the push twice', async () => {
    const slot = request({ replyToken: undefined, turnStartedAt: now });
    await delivery().deliver(slot, signal);
    now += 25 * 60 * 60 * 1000; // a dead-letter re-run the next day: LINE forgot the key

    expect(await delivery().deliver({ ...slot, resumed: true }, signal)).toMatchObject({ method: 'push' });

    expect(line.shown()).toHaveLength(2); // exactly the duplicate docs/line.md names
    expect(logged()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: expect.stringContaining('retry-key window') as string,
      }),
    );
  });
});

describe('the fake LINE is as strict as LINE', () => {
  it('answers a repeated retry key with 409, the accepted request id and its sent messages', async () => {
    const key = retryKeyFor('turn', 0);
    const push = () =>
      fetch(`${line.url}/v2/bot/message/push`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${line.emulator.channelAccessToken}`,
          'content-type': 'application/json',
          'x-line-retry-key': key,
        },
        body: JSON.stringify({ to: USER, messages: [{ type: 'text', text: 'hi' }] }),
      });
    const first = await push();
    const again = await push();

    expect(first.status).toBe(200);
    expect(again.status).toBe(409);
    expect(again.headers.get('x-line-accepted-request-id')).toBe(first.headers.get('x-line-request-id'));
    expect(again.headers.get('x-line-request-id')).not.toBe(first.headers.get('x-line-request-id'));
    expect(((await again.json()) as { sentMessages: unknown[] }).sentMessages).toHaveLength(1);
    now += 24 * 60 * 60 * 1000;
    expect((await push()).status).toBe(200); // the key is honoured for 24 hours only
  });

  it.each([
    ['a retry key that is not a UUID', '/v2/bot/message/push', 'not-a-uuid'],
    ['a retry key on the reply endpoint', '/v2/bot/message/reply', retryKeyFor('turn', 0)],
  ])('refuses %s with 400 and sends nothing', async (_name, path, key) => {
    const answer = await fetch(`${line.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${line.emulator.channelAccessToken}`,
        'content-type': 'application/json',
        'x-line-retry-key': key,
      },
      body: JSON.stringify({ to: USER, replyToken: 'x', messages: [{ type: 'text', text: 'hi' }] }),
    });

    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { message: string }).message).toMatch(/retry.key/i);
    expect(line.shown()).toEqual([]);
  });
});
