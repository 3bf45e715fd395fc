import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { InspectorSessions, inspectorAccess, inspectorGuard } from '../../src/inspect/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel } from '../../src/model/index.js';
import { startKaiwa, type KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';

const TOKEN = 'a-long-inspect-token-0123456789abcdef';
const LIFETIME_MS = 3_600_000;

describe('the inspector access rule', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(
    options: { emulatorMode: boolean; token?: string | undefined },
    now = () => Date.now(),
  ) {
    const guard = inspectorGuard(inspectorAccess({ ...options, sessionLifetimeMs: LIFETIME_MS }), { now });
    const app = express();
    const router = express.Router();
    router.use(guard.requireEnabled);
    router.post('/login', express.urlencoded({ extended: false }), guard.login);
    router.use(guard.requireSession, (_request, response) => void response.send('inside'));
    app.use('/inspect', router);
    server = createServer(app);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/inspect`;
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
    // Never a credential for the request itself: exchanged for the cookie, see below.
    { mode: 'channel', token: TOKEN, request: { query: TOKEN }, status: 303 },
    { mode: 'channel', token: TOKEN, request: { cookie: 'kaiwa_inspect=1.forged' }, status: 401 },
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
      request: { bearer?: string; query?: string; cookie?: string };
      status: number;
    }) => {
      const url = await serve({ emulatorMode: mode === 'emulator', token });
      const response = await fetch(`${url}/api/sources${request.query ? `?token=${request.query}` : ''}`, {
        redirect: 'manual',
        headers: {
          ...(request.bearer && { authorization: `Bearer ${request.bearer}` }),
          ...(request.cookie && { cookie: request.cookie }),
        },
      });
      expect(response.status).toBe(status);
      expect(response.headers.get('cache-control')).toBe('no-store');
      if (status === 401) expect(response.headers.get('www-authenticate')).toContain('Bearer');
    },
  );

  it('exchanges a right ?token= for an HttpOnly, SameSite=Strict cookie and a clean address', async () => {
    const url = await serve({ emulatorMode: false, token: TOKEN });
    const exchanged = await fetch(`${url}/api/sources?a=1&token=${TOKEN}&b=2`, { redirect: 'manual' });
    expect(exchanged.status).toBe(303);
    expect(exchanged.headers.get('location')).toBe('/inspect/api/sources?a=1&b=2');
    const cookie = exchanged.headers.get('set-cookie')!;
    expect(cookie).toMatch(
      /^kaiwa_inspect=\d+\.[\w-]{43}; Max-Age=3600; Path=\/inspect; Expires=.+; HttpOnly; SameSite=Strict$/,
    );
    expect(cookie).not.toContain(TOKEN);

    const session = cookie.split(';')[0]!;
    const inside = await fetch(`${url}/api/sources`, { headers: { cookie: `other=1; ${session}` } });
    expect(inside.status).toBe(200);
    expect(await inside.text()).toBe('inside');
  });

  it('marks the cookie Secure behind https (the connection or X-Forwarded-Proto)', async () => {
    const url = await serve({ emulatorMode: false, token: TOKEN });
    const exchanged = await fetch(`${url}/?token=${TOKEN}`, {
      redirect: 'manual',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(exchanged.headers.get('set-cookie')).toMatch(/; Secure; SameSite=Strict$/);
  });

  it('takes the token from the login form (POST), and shows the form again when it is wrong', async () => {
    const url = await serve({ emulatorMode: false, token: TOKEN });
    const form = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };
    const page = await fetch(url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('<form method="post" action="/inspect/login">');

    const wrong = await fetch(`${url}/login`, { method: 'POST', headers: form, body: 'token=nope' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('id="login-failed"');
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const right = await fetch(`${url}/login`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ token: TOKEN }).toString(),
      redirect: 'manual',
    });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/inspect');
    expect(right.headers.get('set-cookie')).toContain('HttpOnly; SameSite=Strict');
  });

  it('ends a session when it expires, and every session when the token changes', async () => {
    let now = 1_000_000;
    const url = await serve({ emulatorMode: false, token: TOKEN }, () => now);
    const exchanged = await fetch(`${url}/?token=${TOKEN}`, { redirect: 'manual' });
    const session = exchanged.headers.get('set-cookie')!.split(';')[0]!;
    now += LIFETIME_MS;
    expect((await fetch(url, { headers: { cookie: session } })).status).toBe(200);
    now += 1;
    expect((await fetch(url, { headers: { cookie: session } })).status).toBe(401);

    const other = new InspectorSessions({ token: `${TOKEN}-rotated`, lifetimeMs: LIFETIME_MS }).issue();
    expect((await fetch(url, { headers: { cookie: `kaiwa_inspect=${other}` } })).status).toBe(401);
  });
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
    for (const path of [
      '/inspect',
      '/inspect/api/sources',
      `/inspect/api/sources/U${'1'.repeat(32)}/row`,
      '/inspect/api/stream',
    ]) {
      expect((await fetch(`${runtime.url}${path}`)).status).toBe(404);
    }
  });

  it('answers 401 without the token and serves the page and API with it', async () => {
    runtime = await start({ INSPECT_TOKEN: TOKEN });
    for (const path of [
      '/inspect',
      '/inspect/api/sources',
      `/inspect/api/sources/U${'1'.repeat(32)}`,
      `/inspect/api/sources/U${'1'.repeat(32)}/row`,
      '/inspect/api/chart.svg',
      '/inspect/api/stream',
    ]) {
      expect((await fetch(`${runtime.url}${path}`)).status, path).toBe(401);
      expect((await fetch(`${runtime.url}${path}?token=nope`)).status, path).toBe(401);
    }
    const exchanged = await fetch(`${runtime.url}/inspect?token=${TOKEN}`, { redirect: 'manual' });
    expect(exchanged.status).toBe(303);
    const cookie = exchanged.headers.get('set-cookie')!.split(';')[0]!;
    const page = await fetch(`${runtime.url}/inspect`, { headers: { cookie } });
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
  it('reads INSPECT_TOKEN, its sessions and the opt-in KAIWA_STATELY_INSPECT', () => {
    expect(loadConfig({}).inspect).toEqual({
      token: undefined,
      sessionLifetimeMs: 12 * 3_600_000,
      stately: false,
    });
    expect(
      loadConfig({
        INSPECT_TOKEN: ` ${TOKEN} `,
        KAIWA_INSPECT_SESSION_MS: '60000',
        KAIWA_STATELY_INSPECT: 'true',
      }).inspect,
    ).toEqual({ token: TOKEN, sessionLifetimeMs: 60_000, stately: true });
  });

  it('refuses an INSPECT_TOKEN under 32 characters, naming the variable', () => {
    const short = 'x'.repeat(31);
    expect(() => loadConfig({ INSPECT_TOKEN: short })).toThrow(ConfigError);
    expect(() => loadConfig({ INSPECT_TOKEN: short })).toThrow(
      /^invalid configuration: INSPECT_TOKEN must be at least 32 characters \(got 31\)/,
    );
    expect(() => loadConfig({ INSPECT_TOKEN: short })).not.toThrow(new RegExp(short));
    expect(loadConfig({ INSPECT_TOKEN: 'x'.repeat(32) }).inspect.token).toBe('x'.repeat(32));
  });

  it('names KAIWA_STATELY_INSPECT when it is not a boolean', () => {
    expect(() => loadConfig({ KAIWA_STATELY_INSPECT: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ KAIWA_STATELY_INSPECT: 'maybe' })).toThrow(/KAIWA_STATELY_INSPECT/);
  });
});
