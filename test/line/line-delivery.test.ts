import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LineDelivery } from '../../src/line/line-delivery.js';
import { LineTransport } from '../../src/line/line-transport.js';
import { createMessagingApiClient } from '../../src/line/sdk-http-client.js';
import { retryKeyFor } from '../../src/line/retry-key.js';
import { createLogger } from '../../src/logging/index.js';
import type { DeliveryRequest } from '../../src/machines/index.js';
import type { BackoffPolicy } from '../../src/timing/index.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { until } from '../support/until.js';

const USER = 'U' + '1'.repeat(32);
const now = 1_800_000_000_000;
const clock = { now: () => now };
let line: Awaited<ReturnType<typeof startFakeLine>>;
let logLines: string[];

beforeEach(async () => {
  line = await startFakeLine({ clock });
  logLines = [];
});
afterEach(() => line.close());

function delivery(backoff: BackoffPolicy = { baseMs: 1, maxMs: 5 }) {
  const logger = createLogger({ level: 'debug', write: (entry) => logLines.push(entry) });
  const transport = new LineTransport({ logger });
  const client = createMessagingApiClient(transport, {
    channelAccessToken: line.emulator.channelAccessToken,
    baseURL: line.url,
  });
  return new LineDelivery({
    client,
    transport,
    clock,
    logger,
    backoff,
  });
}

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
    expect(await delivery().deliver(request(), signal)).toEqual({ method: 'reply' });
    expect(sentTo('/v2/bot/message/reply')).toHaveLength(1);
    expect(sentTo('/v2/bot/message/push')).toHaveLength(0);
  });

  it("pushes with the turn's retry key once the token is older than the window", async () => {
    const old = request({ replyTokenIssuedAt: now - 50_001 });

    expect(await delivery().deliver(old, signal)).toEqual({ method: 'push' });

    expect(sentTo('/v2/bot/message/reply')).toHaveLength(0);
    const [push] = sentTo('/v2/bot/message/push');
    expect(push?.headers['x-line-retry-key']).toBe(retryKeyFor(old.turnId, 0));
    expect(push?.body).toMatchObject({ to: USER, messages: [{ type: 'text', text: 'hello' }] });
    expect(push?.schemaProblems).toEqual([]);
  });

  it('pushes when LINE rejects the reply token, with a stable retry key', async () => {
    const used = request();
    await delivery().deliver(used, signal); // spends the token

    expect(await delivery().deliver({ ...used, index: 1 }, signal)).toEqual({ method: 'push' });
    expect(await delivery().deliver({ ...used, index: 1 }, signal)).toEqual({ method: 'push' });

    const keys = sentTo('/v2/bot/message/push').map((push) => push.headers['x-line-retry-key']);
    expect(keys).toEqual([retryKeyFor(used.turnId, 1), retryKeyFor(used.turnId, 1)]);
    // The second push with the same key got LINE's 409 and counts as delivered: one message shown.
    expect(line.emulator.entries().filter((entry) => entry.via === 'push')).toHaveLength(1);
  });

  it('on a resumed delivery, a rejected reply token means the reply went out: recorded, not pushed', async () => {
    const used = request();
    await delivery().deliver(used, signal); // the first process sent it, then died before the marker

    expect(await delivery().deliver({ ...used, resumed: true }, signal)).toEqual({ method: 'reply' });

    expect(sentTo('/v2/bot/message/push')).toHaveLength(0);
    expect(line.emulator.entries().filter((entry) => entry.from === 'bot')).toHaveLength(1);
  });

  it('a reply retried after a 5xx that LINE then refuses for its token was delivered: not pushed', async () => {
    // LINE took the reply but answered 500; the retry finds the token used.
    line.failNext('/v2/bot/message/reply', 500, { message: 'Internal error' });
    const first = request();
    await delivery().deliver(first, signal); // spends the token on the retry
    line.failNext('/v2/bot/message/reply', 500, { message: 'Internal error' });

    expect(await delivery().deliver({ ...first, index: 1 }, signal)).toEqual({ method: 'reply' });

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

    expect(await delivery().deliver(request({ replyToken: undefined }), signal)).toEqual({ method: 'push' });

    expect(sentTo('/v2/bot/message/push')).toHaveLength(3);
  });

  it("gives up after its attempts and names LINE's request id", async () => {
    line.failNext('/v2/bot/message/push', 500, { message: 'Internal error' }, 10);

    await expect(delivery().deliver(request({ replyToken: undefined }), signal)).rejects.toMatchObject({
      status: 500,
      requestId: expect.stringMatching(/^req-/) as string,
    });
    expect(sentTo('/v2/bot/message/push')).toHaveLength(4);
  });

  it('stops waiting for a retry as soon as the turn is cancelled', async () => {
    line.failNext('/v2/bot/message/push', 503, { message: 'Service unavailable' });
    const turn = new AbortController();
    const reason = new Error('the actor stopped');
    // A ten-minute backoff: only the abort can end this delivery within the test's time.
    const sender = delivery({ baseMs: 600_000, maxMs: 600_000, random: () => 0.5 });

    const outcome = sender.deliver(request({ replyToken: undefined }), turn.signal).catch((e: unknown) => e);
    await until(() => logLines.some((entry) => entry.includes('LINE call failed; retrying')));
    turn.abort(reason);

    expect(await outcome).toBe(reason);
    expect(sentTo('/v2/bot/message/push')).toHaveLength(1);
  }, 3_000);

  it('does not retry the monthly quota 429, and counts it', async () => {
    line.failNext('/v2/bot/message/push', 429, { message: 'You have reached your monthly limit.' }, 10);
    const sender = delivery();

    await expect(sender.deliver(request({ replyToken: undefined }), signal)).rejects.toMatchObject({
      status: 429,
    });

    expect(sentTo('/v2/bot/message/push')).toHaveLength(1);
    expect(sender.monthlyQuotaRefusals).toBe(1);
    expect(logLines.some((entry) => entry.includes('monthly message quota'))).toBe(true);
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
