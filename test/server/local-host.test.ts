import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel } from '../../src/model/index.js';
import { startKaiwa, type KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';

/** A request with a Host header of our choosing (fetch sets its own). */
function get(url: string, path: string, host: string, method = 'GET'): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname, port, path, method, headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

// Every route a page on another site could reach once its name resolves to 127.0.0.1.
const ROUTES = [
  ['GET', '/'],
  ['GET', '/healthz'],
  ['GET', '/inspect'],
  ['GET', '/inspect/api/sources'],
  ['GET', '/inspect/api/stream'],
  ['GET', '/emulator/api/transcript'],
  ['GET', '/emulator/api/stream'],
  ['POST', '/emulator/api/messages'],
  ['POST', '/webhook'],
  ['POST', '/v2/bot/message/push'],
] as const;

describe('emulator mode answers only requests addressed to this machine (DNS rebinding)', () => {
  let runtime: KaiwaRuntime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });

  const start = (env: Record<string, string> = {}) =>
    startKaiwa(loadConfig({ PORT: '0', STORE: 'memory', ...env }), {
      model: new ScriptedModel([]),
      logger: silentLogger,
    });

  it.each(ROUTES)('%s %s with Host: attacker.example → 403', async (method, path) => {
    runtime = await start();
    const port = new URL(runtime.url).port;
    expect(await get(runtime.url, path, 'attacker.example', method)).toBe(403);
    expect(await get(runtime.url, path, `attacker.example:${port}`, method)).toBe(403);
    // The right name on another port is another origin: refused too.
    expect(await get(runtime.url, path, 'localhost:1', method)).toBe(403);
  });

  it('answers localhost, 127.0.0.1 and [::1] on its own port', async () => {
    runtime = await start();
    const port = new URL(runtime.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      expect(await get(runtime.url, '/emulator/api/transcript', host), host).toBe(200);
      expect(await get(runtime.url, '/inspect/api/sources', host), host).toBe(200);
    }
  });

  it('still chats: the emulator page, its webhooks and the bot calls to its LINE API all pass', async () => {
    runtime = await start();
    const response = await fetch(`${runtime.url}/emulator/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat: { kind: 'user', name: 'Aiko' }, userName: 'Aiko', text: 'hello' }),
    });
    expect(await response.json()).toMatchObject({ webhookStatus: 200 });
  });

  it('channel mode keeps every Host (LINE and proxies call it by its public name)', async () => {
    runtime = await start({
      LINE_CHANNEL_SECRET: 'channel-secret-for-the-test',
      LINE_CHANNEL_ACCESS_TOKEN: 'channel-access-token-for-the-test',
      LINE_API_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(await get(runtime.url, '/healthz', 'bot.example.com')).toBe(200);
  });
});

describe('HOST, the listen address', () => {
  it('defaults to 127.0.0.1 in emulator mode and 0.0.0.0 with a LINE channel', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ LINE_CHANNEL_SECRET: 'secret', LINE_CHANNEL_ACCESS_TOKEN: 'token' }).host).toBe(
      '0.0.0.0',
    );
    expect(loadConfig({ HOST: '::1' }).host).toBe('::1');
    expect(loadConfig({ HOST: 'localhost' }).host).toBe('localhost');
  });

  it('names HOST when it is not an address', () => {
    expect(() => loadConfig({ HOST: 'http://0.0.0.0' })).toThrow(/^invalid configuration: HOST must be/);
  });

  it('listens where HOST says', async () => {
    const runtime = await startKaiwa(loadConfig({ PORT: '0', STORE: 'memory', HOST: '::1' }), {
      model: new ScriptedModel([]),
      logger: silentLogger,
    });
    try {
      expect(runtime.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await fetch(`${runtime.url}/healthz`)).status).toBe(200);
      const port = new URL(runtime.url).port;
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      await runtime.close();
    }
  });
});
