import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLine } from '../support/fake-line-server.js';
import { until } from '../support/until.js';

// The fake LINE the crash tests run against is at least as strict as LINE: a spent or old
// reply token is a 400, a repeated retry key a 409 naming the request that took it, a retry
// key that is not a UUID a 400, and every answer carries its request id.

let line: Awaited<ReturnType<typeof startFakeLine>> | undefined;
afterEach(async () => {
  await line?.close();
  line = undefined;
});

async function send(path: string, body: unknown, headers: Record<string, string> = {}, token?: string) {
  const response = await fetch(`${line!.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token ?? line!.emulator.channelAccessToken}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { message?: string },
  };
}

const to = 'U4af4980629a1b2c3d4e5f60718293a4b';
const messages = [{ type: 'text', text: 'hello' }];

describe('the fake LINE', () => {
  it('answers a reused reply token with 400 "Invalid reply token"', async () => {
    line = await startFakeLine();
    const replyToken = line.emulator.issueReplyToken(to);
    expect((await send('/v2/bot/message/reply', { replyToken, messages })).status).toBe(200);
    expect(await send('/v2/bot/message/reply', { replyToken, messages })).toMatchObject({
      status: 400,
      body: { message: 'Invalid reply token' },
    });
  });

  it('expires reply tokens after replyTokenLifetimeMs', async () => {
    let now = 1_000_000;
    line = await startFakeLine({ clock: { now: () => now }, replyTokenLifetimeMs: 5_000 });
    const young = line.emulator.issueReplyToken(to);
    const old = line.emulator.issueReplyToken(to);
    now += 5_001;
    expect(await send('/v2/bot/message/reply', { replyToken: old, messages })).toMatchObject({
      status: 400,
      body: { message: 'Invalid reply token' },
    });
    now -= 1;
    expect((await send('/v2/bot/message/reply', { replyToken: young, messages })).status).toBe(200);
  });

  it('answers a repeated retry key with 409 and x-line-accepted-request-id, and refuses a key that is not a UUID', async () => {
    line = await startFakeLine();
    const key = { 'x-line-retry-key': '123e4567-e89b-12d3-a456-426614174000' };
    const first = await send('/v2/bot/message/push', { to, messages }, key);
    expect(first.status).toBe(200);
    const requestId = first.headers.get('x-line-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const again = await send('/v2/bot/message/push', { to, messages }, key);
    expect(again.status).toBe(409);
    expect(again.headers.get('x-line-accepted-request-id')).toBe(requestId);
    expect(again.headers.get('x-line-request-id')).not.toBe(requestId);
    expect(
      (await send('/v2/bot/message/push', { to, messages }, { 'x-line-retry-key': 'turn-1' })).status,
    ).toBe(400);
    expect(line.emulator.entries().filter((entry) => entry.from === 'bot')).toHaveLength(1);
  });

  it('records which named access token sent a request, and what LINE answered even when the answer is late', async () => {
    // Answers a second late: the record is there while the answer is still on its way (polled,
    // not slept for: a loaded machine may take a while to deliver the request at all).
    line = await startFakeLine({ messageLatencyMs: () => 1000 });
    const token = line.accessTokenFor('B#2');
    let answered = false;
    const pending = send('/v2/bot/message/push', { to, messages }, {}, token).finally(
      () => (answered = true),
    );
    const fake = line;
    const recorded = await until(() => fake.requestsTo('/v2/bot/message/push')[0]);
    expect(recorded).toMatchObject({ sender: 'B#2', status: 200 });
    expect(answered).toBe(false);
    expect((await pending).status).toBe(200);
  });
});
