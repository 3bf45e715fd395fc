import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { inspectorAccess, requireInspectorAccess } from '../../src/inspect/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel } from '../../src/model/index.js';
import { startKaiwa, type KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';

const TOKEN = 'a-long-inspect-token';

describe('the inspector access rule', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(access: ReturnType<typeof inspectorAccess>) {
    const app = express();
    app.use(requireInspectorAccess(access), (_request, response) => void response.send('inside'));
    server = createServer(app);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it.each([
    { mode: 'emulator', token: undefined, request: {}, status: 200 },
    { mode: 'emulator', token: TOKEN, request: {}, status: 401 },
    { mode: 'emulator', token: TOKEN, request: { bearer: TOKEN }, status: 200 },
    { mode: 'channel', token: undefined, request: {}, status: 404 },
    { mode: 'channel', token: undefined, request: { bearer: TOKEN }, status: 404 },
    { mode: 'channel', token: TOKEN, request: {}, status: 401 },
    { mode: 'channel', token: TOKEN, request: { bearer: 'wrong' }, status: 401 },
    { mode: 'channel', token: TOKEN, request: { query: 'wrong' }, status: 401 },
    { mode: 'channel', token: TOKEN, request: { bearer: TOKEN }, status: 200 },
    { mode: 'channel', token: TOKEN, request: { query: TOKEN }, status: 200 },
  ])(
    '$mode mode, INSPECT_TOKEN $token, request $request → $status',
    async ({
      mode,
      token,
      request,
      status,
    }: {
      mode: string;
      token: string | undefined;
      request: { bearer?: string; query?: string };
      status: number;
    }) => {
      const url = await serve(inspectorAccess({ emulatorMode: mode === 'emulator', token }));
      const response = await fetch(`${url}/${request.query ? `?token=${request.query}` : ''}`, {
        headers: request.bearer ? { authorization: `Bearer ${request.bearer}` } : {},
      });
      expect(response.status).toBe(status);
      expect(response.headers.get('cache-control')).toBe('no-store');
      if (status === 401) expect(response.headers.get('www-authenticate')).toContain('Bearer');
    },
  );
});

describe('GET /inspect on a running kaiwa with a real LINE channel', () => {
  let runtime: KaiwaRuntime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });

  const start = (env: Record<string, string>) =>
    startKaiwa(
      loadConfig({
        PORT: '0',
        STORE: 'memory',
        LINE_CHANNEL_SECRET: 'channel-secret-for-the-test',
        LINE_CHANNEL_ACCESS_TOKEN: 'channel-access-token-for-the-test',
        LINE_API_BASE_URL: 'http://127.0.0.1:9',
        ...env,
      }),
      { model: new ScriptedModel([]), logger: silentLogger },
    );

  it('is off without INSPECT_TOKEN', async () => {
    runtime = await start({});
    for (const path of ['/inspect', '/inspect/api/sources', '/inspect/api/stream']) {
      expect((await fetch(`${runtime.url}${path}`)).status).toBe(404);
    }
  });

  it('answers 401 without the token and serves the page and API with it', async () => {
    runtime = await start({ INSPECT_TOKEN: TOKEN });
    for (const path of [
      '/inspect',
      '/inspect/api/sources',
      '/inspect/api/chart.svg',
      '/inspect/api/stream',
    ]) {
      expect((await fetch(`${runtime.url}${path}`)).status, path).toBe(401);
      expect((await fetch(`${runtime.url}${path}?token=nope`)).status, path).toBe(401);
    }
    const page = await fetch(`${runtime.url}/inspect?token=${TOKEN}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/inspect/assets/inspector.js');
    const sources = await fetch(`${runtime.url}/inspect/api/sources`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await sources.json()).toEqual({ sources: [] });
  });

  it('serves its static code without the token (it holds no data) but nothing else', async () => {
    runtime = await start({ INSPECT_TOKEN: TOKEN });
    const script = await fetch(`${runtime.url}/inspect/assets/inspector.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).not.toContain(TOKEN);
  });
});

describe('configuration', () => {
  it('reads INSPECT_TOKEN and the opt-in KAIWA_STATELY_INSPECT', () => {
    expect(loadConfig({}).inspect).toEqual({ token: undefined, stately: false });
    expect(loadConfig({ INSPECT_TOKEN: ' t0ken ', KAIWA_STATELY_INSPECT: 'true' }).inspect).toEqual({
      token: 't0ken',
      stately: true,
    });
  });

  it('names KAIWA_STATELY_INSPECT when it is not a boolean', () => {
    expect(() => loadConfig({ KAIWA_STATELY_INSPECT: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ KAIWA_STATELY_INSPECT: 'maybe' })).toThrow(/KAIWA_STATELY_INSPECT/);
  });
});
