import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/logging/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import { startKaiwa, type KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';

let runtime: KaiwaRuntime;
const logLines: string[] = [];

beforeAll(async () => {
  runtime = await startKaiwa(loadConfig({ PORT: '0', STORE: 'memory' }), {
    store: new MemorySourceStore(),
    logger: createLogger({ level: 'debug', write: (line) => logLines.push(line) }),
  });
});
afterAll(() => runtime.close());

const post = (path: string, body: unknown, token = runtime.emulator!.channelAccessToken) =>
  fetch(`${runtime.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the emulator checks what the bot sends against messaging-api.yml', () => {
  it.each([
    ['a text message without text', { replyToken: 'x', messages: [{ type: 'text' }] }],
    ['an unknown message type', { replyToken: 'x', messages: [{ type: 'bogus' }] }],
    [
      'six messages',
      { replyToken: 'x', messages: Array.from({ length: 6 }, () => ({ type: 'text', text: 'hi' })) },
    ],
  ])('refuses %s with 400, loudly on the page and in the log', async (_case, body) => {
    const before = runtime.emulator!.entries().length;

    const response = await post('/v2/bot/message/reply', body);

    expect(response.status).toBe(400);
    const shown = runtime.emulator!.entries().slice(before);
    expect(shown).toEqual([expect.objectContaining({ from: 'system', violation: true })]);
    expect(logLines.some((line) => line.includes("breaks LINE's schema"))).toBe(true);
  });

  it('refuses a wrong access token with 401, as LINE does', async () => {
    const response = await post(
      '/v2/bot/message/push',
      { to: 'U1', messages: [{ type: 'text', text: 'hi' }] },
      'stolen',
    );
    expect(response.status).toBe(401);
  });

  it('sends webhooks that validate against webhook.yml for every action the page offers', async () => {
    const actions = [
      { chat: { kind: 'user', name: 'Aiko' }, action: { type: 'follow' } },
      { chat: { kind: 'user', name: 'Aiko' }, action: { type: 'text', text: 'hi' } },
      {
        chat: { kind: 'user', name: 'Aiko' },
        action: { type: 'sticker', packageId: '1', stickerId: '2', keywords: ['hi'] },
      },
      {
        chat: { kind: 'user', name: 'Aiko' },
        action: { type: 'image', mimeType: 'image/png', data: Buffer.from('png').toString('base64') },
      },
      {
        chat: { kind: 'user', name: 'Aiko' },
        action: { type: 'location', title: 'Tokyo', address: 'Tokyo', latitude: 35.6, longitude: 139.7 },
      },
      { chat: { kind: 'group', name: 'Team' }, action: { type: 'join' } },
      { chat: { kind: 'group', name: 'Team' }, action: { type: 'memberJoined' } },
      { chat: { kind: 'group', name: 'Team' }, action: { type: 'memberLeft' } },
      { chat: { kind: 'room', name: 'Lobby' }, action: { type: 'text', text: 'hello room' } },
      { chat: { kind: 'user', name: 'Aiko' }, action: { type: 'unsend', messageId: '123' } },
      { chat: { kind: 'group', name: 'Team' }, action: { type: 'leave' } },
      { chat: { kind: 'user', name: 'Aiko' }, action: { type: 'unfollow' } },
    ];
    for (const action of actions) {
      const response = await fetch(`${runtime.url}/emulator/api/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: 'Aiko', ...action }),
      });
      expect({
        action: action.action.type,
        status: response.status,
        body: await response.json(),
      }).toMatchObject({
        status: 200,
        body: { webhookStatus: 200 },
      });
    }
    await runtime.host.whenSettled();
    expect(runtime.emulator!.entries().filter((entry) => entry.violation)).toEqual([
      // Only the three refused requests of the tests above.
      expect.anything(),
      expect.anything(),
      expect.anything(),
    ]);
  });

  it('answers a malformed action with 400 and a reason', async () => {
    const response = await fetch(`${runtime.url}/emulator/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        userName: 'Aiko',
        chat: { kind: 'user', name: 'Aiko' },
        action: { type: 'join' },
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'join happens in groups and rooms only' });

    const quoting = await fetch(`${runtime.url}/emulator/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        userName: 'Aiko',
        chat: { kind: 'user', name: 'Aiko' },
        action: { type: 'text', text: 'see above', quotedMessageId: 42 },
      }),
    });
    expect(quoting.status).toBe(400);
    expect(await quoting.json()).toEqual({
      message: 'quotedMessageId must be the id of a message in the chat',
    });
  });
});
