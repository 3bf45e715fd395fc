import { randomUUID } from 'node:crypto';
import { HTTPFetchError, messagingApi } from '@line/bot-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { LineEmulator } from '../../src/line/emulator/line-emulator.js';
import { startFakeLine } from '../support/fake-line-server.js';

// The emulator's LINE API against LINE's documented behaviour (docs/line.md, "The emulator"),
// called with the real @line/bot-sdk client; every request is checked against messaging-api.yml.

let line: Awaited<ReturnType<typeof startFakeLine>> | undefined;
let allowSchemaProblems = false;
afterEach(async () => {
  await line?.close({ allowSchemaProblems });
  line = undefined;
  allowSchemaProblems = false;
});

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

async function start(clock = manualClock()) {
  line = await startFakeLine({ clock });
  const client = (defaultHeaders?: Record<string, string>) =>
    new messagingApi.MessagingApiClient({
      channelAccessToken: line!.emulator.channelAccessToken,
      baseURL: line!.url,
      ...(defaultHeaders && { defaultHeaders }),
    });
  return { line, clock, client: client(), clientWith: client };
}

const USER = LineEmulator.idFor('user', 'Aiko');
const text = (value: string) => ({ to: USER, messages: [{ type: 'text' as const, text: value }] });
const botMessages = (emulator: LineEmulator) => emulator.entries().filter((entry) => entry.from === 'bot');

/** The SDK's error for a non-2xx answer; fails the test when the call went through. */
async function failure(call: Promise<unknown>): Promise<HTTPFetchError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HTTPFetchError);
  return error as HTTPFetchError;
}

describe("the emulator's LINE API answers like LINE", () => {
  it('puts an x-line-request-id on every answer: 200, 400, 401, 404 and a fault', async () => {
    const { client, clientWith, line } = await start();
    line.emulator.faults.inject({ kind: 'server-error', endpoint: '/v2/bot/info' });

    const ok = await client.pushMessageWithHttpInfo(text('hi'));
    const refused = await failure(
      client.replyMessage({ replyToken: 'nope', messages: [{ type: 'text', text: 'x' }] }),
    );
    const unauthorised = await failure(
      new messagingApi.MessagingApiClient({ channelAccessToken: 'stolen', baseURL: line.url }).getBotInfo(),
    );
    const missing = await failure(client.getProfile('U' + '0'.repeat(32)));
    const fault = await failure(clientWith().getBotInfo());

    const ids = [
      ok.httpResponse.headers.get('x-line-request-id'),
      ...[refused, unauthorised, missing, fault].map((error) => error.headers.get('x-line-request-id')),
    ];
    expect([refused.status, unauthorised.status, missing.status, fault.status]).toEqual([400, 401, 404, 500]);
    expect(ids).toEqual(
      ids.map(
        () =>
          expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/) as string,
      ),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("answers a repeated retry key with 409, the accepted request's id and its sentMessages, and sends nothing", async () => {
    const { client, line } = await start();
    const retryKey = randomUUID();

    const first = await client.pushMessageWithHttpInfo(text('once'), retryKey);
    const again = await failure(client.pushMessage(text('once'), retryKey));

    expect(again.status).toBe(409);
    expect(again.headers.get('x-line-accepted-request-id')).toBe(
      first.httpResponse.headers.get('x-line-request-id'),
    );
    expect(again.headers.get('x-line-request-id')).not.toBe(
      first.httpResponse.headers.get('x-line-request-id'),
    );
    expect(JSON.parse(again.body)).toEqual({
      message: 'The retry key is already accepted',
      sentMessages: first.body.sentMessages,
    });
    expect(first.body.sentMessages).toHaveLength(1);
    expect(botMessages(line.emulator).map((entry) => entry.text)).toEqual(['once']);
  });

  it('honours a retry key for 24 hours of its clock, then sends again', async () => {
    const { client, clock, line } = await start();
    const retryKey = randomUUID();
    await client.pushMessage(text('first'), retryKey);

    clock.advance(24 * 60 * 60 * 1000 - 1);
    expect((await failure(client.pushMessage(text('first'), retryKey))).status).toBe(409);
    clock.advance(1);
    await client.pushMessage(text('first'), retryKey);

    expect(botMessages(line.emulator).map((entry) => entry.text)).toEqual(['first', 'first']);
  });

  it.each(['not-a-uuid', '123e4567e89b12d3a456426614174000', `${randomUUID()}x`])(
    'refuses the retry key %j with 400 and sends nothing',
    async (retryKey) => {
      const { client, line } = await start();

      const refused = await failure(client.pushMessage(text('hi'), retryKey));

      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body)).toEqual({
        message: expect.stringContaining('X-Line-Retry-Key') as string,
      });
      expect(botMessages(line.emulator)).toEqual([]);
    },
  );

  it('refuses a retry key on the reply endpoint, which does not support it, and leaves the token unused', async () => {
    const { client, clientWith, line } = await start();
    const replyToken = line.emulator.issueReplyToken(USER);
    const reply = { replyToken, messages: [{ type: 'text' as const, text: 'hello' }] };

    const refused = await failure(clientWith({ 'X-Line-Retry-Key': randomUUID() }).replyMessage(reply));
    await client.replyMessage(reply);

    expect(refused.status).toBe(400);
    expect(botMessages(line.emulator).map((entry) => entry.via)).toEqual(['reply']);
  });

  it.each([
    ['5,001 characters', 'a'.repeat(5001)],
    ['2,501 emoji (5,002 UTF-16 units, as LINE counts)', '😀'.repeat(2501)],
  ])("refuses a text of %s with LINE's 400 and details", async (_case, long) => {
    const { client, line } = await start();

    const refused = await failure(
      client.pushMessage({
        to: USER,
        messages: [
          { type: 'text', text: 'short' },
          { type: 'text', text: long },
        ],
      }),
    );

    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({
      message: 'The request body has 1 error(s)',
      details: [{ message: 'Length must be between 0 and 5000', property: 'messages[1].text' }],
    });
    expect(botMessages(line.emulator)).toEqual([]);
    expect(line.emulator.entries()).toEqual([expect.objectContaining({ violation: true, chatId: USER })]);
  });

  it('sends a text of exactly 5,000 characters', async () => {
    const { client } = await start();
    const sent = await client.pushMessage(text('a'.repeat(5000)));
    expect(sent.sentMessages).toHaveLength(1);
  });

  it.each([7, 12, 59])(
    "refuses loadingSeconds %i (not a multiple of 5) with LINE's 400 and details",
    async (seconds) => {
      const { client } = await start();

      const refused = await failure(client.showLoadingAnimation({ chatId: USER, loadingSeconds: seconds }));

      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body)).toEqual({
        message: 'The request body has 1 error(s)',
        details: [
          { message: expect.stringContaining('multiple of 5') as string, property: 'loadingSeconds' },
        ],
      });
    },
  );

  it('refuses loadingSeconds beyond 60 (the schema and the rule both say so)', async () => {
    const { client } = await start();
    allowSchemaProblems = true;

    const refused = await failure(client.showLoadingAnimation({ chatId: USER, loadingSeconds: 65 }));

    expect(refused.status).toBe(400);
    expect((JSON.parse(refused.body) as { details: unknown[] }).details).toContainEqual({
      message: expect.stringContaining('multiple of 5') as string,
      property: 'loadingSeconds',
    });
  });

  it.each([5, 20, 60])('shows the loading animation for %i seconds', async (seconds) => {
    const { client } = await start();
    const shown = await client.showLoadingAnimationWithHttpInfo({ chatId: USER, loadingSeconds: seconds });
    expect(shown.httpResponse.status).toBe(202);
  });

  it('takes a reply token once, and not after it expired', async () => {
    const { client, clock, line } = await start();
    const used = line.emulator.issueReplyToken(USER);
    const old = line.emulator.issueReplyToken(USER);
    const reply = (replyToken: string) => ({ replyToken, messages: [{ type: 'text' as const, text: 'hi' }] });

    await client.replyMessage(reply(used));
    const again = await failure(client.replyMessage(reply(used)));
    clock.advance(LineEmulator.REPLY_TOKEN_LIFETIME_MS + 1);
    const expired = await failure(client.replyMessage(reply(old)));

    expect([again.status, expired.status]).toEqual([400, 400]);
    expect(JSON.parse(expired.body)).toEqual({ message: 'Invalid reply token' });
    expect(botMessages(line.emulator)).toHaveLength(1);
  });

  it('counts the members of a group or room without the bot, as LINE does', async () => {
    const { client, line } = await start();
    for (const name of ['Aiko', 'Ken', 'Mei'])
      line.emulator.registerSpeaker(name, { kind: 'group', name: 'Team' });
    const { chatId: roomId } = line.emulator.registerSpeaker('Aiko', { kind: 'room', name: 'Lobby' });

    const group = await client.getGroupMemberCount(LineEmulator.idFor('group', 'Team'));
    const room = await client.getRoomMemberCount(roomId);

    expect([group.count, room.count]).toEqual([3, 1]);
  });
});

describe('faults injected into the next calls', () => {
  it("answers the next N calls to one endpoint with LINE's rate-limit 429, then works; other endpoints are untouched", async () => {
    const { client, line } = await start();
    line.emulator.faults.inject({ kind: 'too-many-requests', times: 2, endpoint: '/v2/bot/message/push' });

    const limited = [
      await failure(client.pushMessage(text('a'))),
      await failure(client.pushMessage(text('a'))),
    ];
    await client.getBotInfo();
    await client.pushMessage(text('a'));

    expect(limited.map((error) => [error.status, JSON.parse(error.body) as unknown])).toEqual([
      [429, { message: 'The API rate limit has been exceeded. Try again later.' }],
      [429, { message: 'The API rate limit has been exceeded. Try again later.' }],
    ]);
    expect(botMessages(line.emulator)).toHaveLength(1);
    expect(line.emulator.faults.pending()).toEqual([]);
  });

  it("answers LINE's monthly-limit 429", async () => {
    const { client, line } = await start();
    line.emulator.faults.inject({ kind: 'too-many-requests', monthlyLimit: true });

    const limited = await failure(client.pushMessage(text('a')));

    expect([limited.status, JSON.parse(limited.body)]).toEqual([
      429,
      { message: 'You have reached your monthly limit.' },
    ]);
  });

  it('answers a 5xx on every endpoint when no endpoint is named, and nothing is delivered', async () => {
    const { client, line } = await start();
    line.emulator.faults.inject({ kind: 'server-error', status: 503, times: 2 });

    const statuses = [
      (await failure(client.getBotInfo())).status,
      (await failure(client.pushMessage(text('lost')))).status,
    ];

    expect(statuses).toEqual([503, 503]);
    expect(botMessages(line.emulator)).toEqual([]);
  });

  it('drops the connection without an answer; the push was not delivered and the same key then sends it', async () => {
    const { client, line } = await start();
    line.emulator.faults.inject({ kind: 'drop-connection', endpoint: '/v2/bot/message/push' });
    const retryKey = randomUUID();

    const dropped = await client.pushMessage(text('once'), retryKey).catch((error: unknown) => error);
    await client.pushMessage(text('once'), retryKey);

    expect(dropped).toBeInstanceOf(Error);
    expect(dropped).not.toBeInstanceOf(HTTPFetchError);
    expect(botMessages(line.emulator).map((entry) => entry.text)).toEqual(['once']);
  });

  it('can drop the connection after the push was delivered: the retry with the same key gets 409', async () => {
    const { client, line } = await start();
    line.emulator.faults.inject({
      kind: 'drop-connection',
      endpoint: '/v2/bot/message/push',
      delivered: true,
    });
    const retryKey = randomUUID();

    const dropped = await client.pushMessage(text('once'), retryKey).catch((error: unknown) => error);
    const retried = await failure(client.pushMessage(text('once'), retryKey));

    expect(dropped).not.toBeInstanceOf(HTTPFetchError);
    expect(retried.status).toBe(409);
    expect(JSON.parse(retried.body)).toMatchObject({ sentMessages: [{ id: expect.any(String) as string }] });
    expect(botMessages(line.emulator).map((entry) => entry.text)).toEqual(['once']);
  });

  it('can answer 500 to a reply it delivered: the token is then spent', async () => {
    const { client, line } = await start();
    line.emulator.faults.inject({ kind: 'server-error', endpoint: '/v2/bot/message/reply', delivered: true });
    const reply = {
      replyToken: line.emulator.issueReplyToken(USER),
      messages: [{ type: 'text' as const, text: 'delivered' }],
    };

    const failed = await failure(client.replyMessage(reply));
    const retried = await failure(client.replyMessage(reply));

    expect([failed.status, retried.status]).toEqual([500, 400]);
    expect(JSON.parse(retried.body)).toEqual({ message: 'Invalid reply token' });
    expect(botMessages(line.emulator).map((entry) => entry.text)).toEqual(['delivered']);
  });

  it('refuses a fault it cannot play', async () => {
    const { line } = await start();
    expect(line.emulator.faults.inject({ kind: 'server-error', status: 404 })).toBe(
      'status must be 500 to 599',
    );
    expect(line.emulator.faults.inject({ kind: 'too-many-requests', delivered: true })).toBe(
      'a 429 is never delivered',
    );
    expect(line.emulator.faults.inject({ kind: 'drop-connection', times: 0 })).toMatch(/times/);
    expect(line.emulator.faults.pending()).toEqual([]);
  });
});

describe('standby mode', () => {
  it('shows a push into a chat whose last event came in standby as a violation', async () => {
    const { client, line } = await start();
    line.emulator.setChatMode(USER, 'standby');

    await client.pushMessage(text('should not'));
    line.emulator.setChatMode(USER, 'active');
    await client.pushMessage(text('fine'));

    expect(line.emulator.entries().filter((entry) => entry.violation)).toEqual([
      expect.objectContaining({ chatId: USER, text: expect.stringContaining('standby') as string }),
    ]);
  });
});
