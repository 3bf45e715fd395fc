import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { signBody } from '../../src/line/emulator/webhook-sender.js';
import { silentLogger } from '../../src/logging/index.js';
import { callReply } from '../../src/model/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import { startKaiwa, type KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';
import { ARTIFACTS_DIR, launchChromium } from '../support/chromium.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { textEvent } from '../support/kaiwa-under-test.js';
import { emulatorChatId, gatedModel, sayInEmulator, startEmulatorKaiwa, until } from './inspect-harness.js';

// One Chromium for the whole file (the machine has two cores). launchChromium fails — never
// skips — when Chromium is missing, so CI (CI=true, where .ci/run installs it) cannot pass without it.
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openPage(url: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1100 } });
  cleanups.push(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('requestfailed', (request) => {
    if (!request.url().startsWith(url.split('/inspect')[0]!))
      problems.push(`off-site request ${request.url()}`);
  });
  page.on('request', (request) => {
    if (!request.url().startsWith('http://127.0.0.1')) problems.push(`off-site request ${request.url()}`);
  });
  cleanups.push(() => {
    expect(problems, 'page errors and off-site requests').toEqual([]);
    return Promise.resolve();
  });
  return page;
}

const activeStates = (page: Page) =>
  page.$$eval('#chart .kc-state.kc-active', (nodes) =>
    nodes.map((node) =>
      (node as unknown as { getAttribute(name: string): string | null }).getAttribute('data-state-id'),
    ),
  );

const logRows = (page: Page) => page.locator('#log-rows tr').count();

describe('the inspector page in Chromium', () => {
  it('highlights the current state while a turn runs, grows the log live, and replays it step by step', async () => {
    const gated = gatedModel(() => callReply('here you are'));
    const runtime = await startEmulatorKaiwa({ model: gated.model });
    cleanups.push(() => runtime.close());
    const page = await openPage(`${runtime.url}/inspect`);
    await page.goto(`${runtime.url}/inspect`);
    await page.waitForSelector('#chart svg [data-state-id="conversation.idle"]');
    await page.waitForSelector('#connection[data-status="live"]');

    await sayInEmulator(runtime.url, 'what is on today?');
    await page.waitForSelector('#chart [data-state-id="conversation.generate"].kc-active');
    expect(await activeStates(page)).toEqual(['conversation.generate']);
    await expect.poll(() => page.textContent('#current-state')).toBe('generate');
    await expect.poll(() => page.locator('#source-rows tr').count()).toBe(1);
    expect(await page.textContent('#source-rows tr')).toContain('Aiko');
    await expect.poll(() => page.textContent('#source-rows tr .state')).toContain('owner ');
    // From now on a turn's start and end refresh its row alone, never the whole list (a scan on DynamoDB).
    const listReads: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/inspect/api/sources') listReads.push(request.url());
    });
    // Next to it, the source's lifecycle: owned here, feeding a turn.
    await page.waitForSelector('#lifecycle-chart [data-state-id="source.owned.active.turn"].kc-active');
    await expect.poll(() => page.textContent('#lifecycle-state')).toBe('owned.active.turn');
    expect(await page.textContent('#lifecycle-facts')).toContain('owned here');
    // With what the store records: the owner, its lease, the inbox.
    await expect
      .poll(() => page.textContent('#lifecycle-facts'))
      .toMatch(/owner .+, lease until .+ · 1 waiting in the inbox/);
    const rowsWhileGenerating = await logRows(page);
    expect(rowsWhileGenerating).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'inspector-generate.png'), fullPage: true });

    gated.release();
    await page.waitForSelector('#chart [data-state-id="conversation.idle"].kc-active');
    await expect.poll(() => activeStates(page)).toEqual(['conversation.idle']);
    await expect.poll(() => logRows(page)).toBeGreaterThan(rowsWhileGenerating + 4);
    await expect.poll(() => page.textContent('#history')).toContain('here you are');
    // The turn is over: the source was released, its inbox read once more, and it rests.
    await page.waitForSelector('#lifecycle-chart [data-state-id="source.idle"].kc-active');
    // The lifecycle chart is too large to read fitted: it is drawn larger, scrolled to where the source stands.
    const box = async (selector: string) => (await page.locator(selector).boundingBox())!;
    const inView = async () => {
      const [view, node, svg] = await Promise.all([
        box('#lifecycle-chart'),
        box('#lifecycle-chart [data-state-id="source.idle"]'),
        box('#lifecycle-chart svg'),
      ]);
      return {
        wider: svg.width > view.width * 2,
        visible:
          node.x >= view.x &&
          node.x + node.width <= view.x + view.width &&
          node.y >= view.y &&
          node.y + node.height <= view.y + view.height,
      };
    };
    await expect.poll(inView).toEqual({ wider: true, visible: true });
    await page.click('#lifecycle-fit');
    const [fittedView, fittedSvg] = await Promise.all([box('#lifecycle-chart'), box('#lifecycle-chart svg')]);
    expect(fittedSvg.width).toBeLessThanOrEqual(fittedView.width);
    // The list says how the last turn ended.
    await expect.poll(() => page.textContent('#source-rows tr .outcome')).toBe('answered');
    expect(listReads).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'inspector.png'), fullPage: true });

    // Replay: each step highlights the state that entry entered.
    const sourceId = await emulatorChatId(runtime.url, 'user', 'Aiko');
    const { journal } = (await (await fetch(`${runtime.url}/inspect/api/sources/${sourceId}`)).json()) as {
      journal: { to: string; activeStateIds: string[] }[];
    };
    const total = await logRows(page);
    expect(total).toBe(journal.length);
    const expectStep = async (index: number) => {
      await expect.poll(() => page.getAttribute('#replay-position', 'data-index')).toBe(String(index));
      expect(await page.textContent('#replay-position')).toBe(`step ${index + 1} of ${total}`);
      expect(await activeStates(page)).toEqual(journal[index]!.activeStateIds);
      expect(await page.textContent('#current-state')).toBe(journal[index]!.to);
      expect(await page.getAttribute(`#log-rows tr[data-index="${index}"]`, 'class')).toContain(
        'replay-current',
      );
    };
    await page.click('#replay-back');
    await expectStep(total - 2);
    await page.click('#replay-back');
    await expectStep(total - 3);
    await page.click('#replay-forward');
    await expectStep(total - 2);
    await page.click('#replay-first');
    await expectStep(0);
    const generateStep = journal.findIndex((entry) => entry.to === 'generate');
    for (let step = 1; step <= generateStep; step++) await page.click('#replay-forward');
    await expectStep(generateStep);
    expect(await activeStates(page)).toEqual(['conversation.generate']);
    await page.keyboard.press('ArrowRight');
    await expectStep(generateStep + 1);
    await page.click('#replay-live');
    await expect.poll(() => page.textContent('#replay-position')).toBe('live');
    expect(await activeStates(page)).toEqual(['conversation.idle']);
  });

  it('replays a stored conversation after a restart, from its persisted journal', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-inspect-browser-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = { STORE: 'sqlite', DATA_DIR: dataDir };
    const gated = gatedModel(() => callReply('noted'));
    gated.release();
    const first = await startEmulatorKaiwa({ model: gated.model, env });
    await sayInEmulator(first.url, 'please remember this');
    await until(() => first.emulator!.entries().some((entry) => entry.from === 'bot'));
    await first.host.whenSettled();
    await first.close();

    const second = await startEmulatorKaiwa({ model: gated.model, env });
    cleanups.push(() => second.close());
    const page = await openPage(second.url);
    await page.goto(`${second.url}/inspect`);
    await page.waitForSelector('#source-rows tr .badge:text("stored")');
    await expect.poll(() => logRows(page)).toBeGreaterThan(8);
    expect(await page.textContent('#source-rows tr .outcome')).toBe('answered');
    // Not in memory, no state is active: the lifecycle chart is shown whole, not a corner of it.
    await expect.poll(() => page.textContent('#lifecycle-state')).toBe('not in memory');
    const [view, svg] = await Promise.all(
      ['#lifecycle-chart', '#lifecycle-chart svg'].map(
        async (selector) => (await page.locator(selector).boundingBox())!,
      ),
    );
    expect(svg!.width).toBeLessThanOrEqual(view!.width);

    await page.click('#replay-first');
    const visited: string[] = [];
    const total = await logRows(page);
    for (let step = 0; step < total; step++) {
      visited.push((await page.textContent('#current-state')) ?? '');
      expect((await activeStates(page)).length).toBeGreaterThan(0);
      await page.click('#replay-forward');
    }
    const distinct = visited.filter((state, index) => state !== visited[index - 1]);
    expect(distinct).toEqual([
      'idle',
      'receive',
      'generate',
      'toolCall.starting',
      'toolCall.running',
      'toolCall.delivering.securing',
      'toolCall.delivering.sending',
      'toolCall.deciding',
      'done',
      'idle',
    ]);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'inspector-replay.png'), fullPage: true });
  });

  it('outside local emulator mode: 401 without INSPECT_TOKEN; the token is taken once, then a cookie does', async () => {
    const line = await startFakeLine();
    cleanups.push(() => line.close());
    const token = 'browser-test-inspect-token-0123456789abcdef';
    const gated = gatedModel(() => callReply('hi from a real channel'));
    const runtime: KaiwaRuntime = await startKaiwa(
      loadConfig({
        PORT: '0',
        STORE: 'memory',
        LINE_CHANNEL_SECRET: 'browser-test-channel-secret',
        LINE_CHANNEL_ACCESS_TOKEN: line.emulator.channelAccessToken,
        LINE_API_BASE_URL: line.url,
        LINE_DATA_API_BASE_URL: line.url,
        INSPECT_TOKEN: token,
      }),
      { model: gated.model, store: new MemorySourceStore(), logger: silentLogger },
    );
    cleanups.push(() => runtime.close());
    const page = await openPage(runtime.url);
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));

    const refused = await page.goto(`${runtime.url}/inspect`);
    expect(refused?.status()).toBe(401);
    expect(await page.textContent('body')).toContain('INSPECT_TOKEN');
    expect((await page.goto(`${runtime.url}/inspect?token=wrong`))?.status()).toBe(401);
    expect(await page.context().cookies()).toEqual([]);

    // Once: the token in the address is exchanged for a cookie, and the page comes back clean.
    urls.length = 0;
    const opened = await page.goto(`${runtime.url}/inspect?token=${token}`);
    expect(opened?.status()).toBe(200);
    expect(page.url()).toBe(`${runtime.url}/inspect`);
    const [cookie, ...others] = await page.context().cookies();
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/inspect' });
    expect(cookie!.value).not.toContain(token);

    await page.reload();
    await page.waitForSelector('#connection[data-status="live"]');
    await page.waitForSelector('#chart svg [data-state-id="conversation.generate"]');
    const userId = 'U' + 'd'.repeat(32);
    const body = JSON.stringify({
      destination: line.emulator.botUserId,
      events: [textEvent(line, { type: 'user', userId }, 'hello')],
    });
    const posted = await fetch(`${runtime.url}/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-line-signature': signBody(body, 'browser-test-channel-secret'),
      },
      body,
    });
    expect(posted.status).toBe(200);
    // The event stream works on the cookie: the new source and its states arrive by themselves.
    await page.waitForSelector(`#source-rows tr[data-source-id="${userId}"]`);
    await page.waitForSelector('#chart [data-state-id="conversation.generate"].kc-active');
    gated.release();
    await page.waitForSelector('#chart [data-state-id="conversation.idle"].kc-active');

    expect(urls[0]).toContain(`token=${token}`);
    expect(urls.some((url) => url.endsWith('/inspect/api/stream'))).toBe(true);
    expect(urls.slice(1).filter((url) => url.includes(token) || url.includes('token='))).toEqual([]);
    expect(await page.textContent('body')).not.toContain(token);
  });

  it('the login form takes the token by POST: no URL ever carries it', async () => {
    const line = await startFakeLine();
    cleanups.push(() => line.close());
    const token = 'form-login-inspect-token-0123456789abcdef';
    const runtime: KaiwaRuntime = await startKaiwa(
      loadConfig({
        PORT: '0',
        STORE: 'memory',
        LINE_CHANNEL_SECRET: 'browser-test-channel-secret',
        LINE_CHANNEL_ACCESS_TOKEN: line.emulator.channelAccessToken,
        LINE_API_BASE_URL: line.url,
        INSPECT_TOKEN: token,
      }),
      { model: gatedModel().model, store: new MemorySourceStore(), logger: silentLogger },
    );
    cleanups.push(() => runtime.close());
    const page = await openPage(runtime.url);
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));

    expect((await page.goto(`${runtime.url}/inspect`))?.status()).toBe(401);
    await page.fill('input[name="token"]', 'not-the-token');
    await page.click('button[type="submit"]');
    await page.waitForSelector('#login-failed');
    expect(await page.context().cookies()).toEqual([]);

    await page.fill('input[name="token"]', token);
    await page.click('button[type="submit"]');
    await page.waitForSelector('#connection[data-status="live"]');
    expect(page.url()).toBe(`${runtime.url}/inspect`);
    await page.reload();
    await page.waitForSelector('#connection[data-status="live"]');
    expect(urls.filter((url) => url.includes(token) || url.includes('token='))).toEqual([]);
  });
});
