import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import { startKaiwa, type KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';
import { LineEmulator } from '../../src/line/emulator/line-emulator.js';
import { ARTIFACTS_DIR, launchChromium } from '../support/chromium.js';
import { storedHistory } from '../support/host-harness.js';
import { until } from '../support/until.js';

let browser: Browser;
let runtime: KaiwaRuntime;
const store = new MemorySourceStore();

beforeAll(async () => {
  browser = await launchChromium();
  runtime = await startKaiwa(loadConfig({ PORT: '0', STORE: 'memory' }), {
    store,
    logger: silentLogger,
  });
});
afterAll(async () => {
  await browser?.close();
  await runtime?.close();
});

describe('the LINE emulator in a browser', () => {
  it("sends a message as a LINE user and shows the bot's reply", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(runtime.url);

    await page.fill('#text', 'hello from Chromium');
    await page.click('#composer button[type=submit]');

    const reply = page.locator('.message.bot .bubble').first();
    await reply.waitFor({ timeout: 10_000 });
    expect(await reply.textContent()).toContain('hello from Chromium');
    expect(await page.locator('.message.user .bubble').first().textContent()).toBe('hello from Chromium');
    expect(await page.locator('.message.bot .meta').first().textContent()).toContain('reply');
    expect(problems).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'emulator-chat.png'), fullPage: true });
    await page.close();
  });

  it('chats in a group as several users, with the answer quoting the message', async () => {
    const page = await browser.newPage();
    await page.goto(runtime.url);
    await page.click('#chats button:has-text("Weekend trip")');

    await page.fill('#speaker', 'Ken');
    await page.fill('#text', 'where shall we go?');
    await page.click('#composer button[type=submit]');

    const reply = page.locator('.message.bot').first();
    await reply.waitFor({ timeout: 10_000 });
    expect(await reply.locator('.quote').textContent()).toContain('Ken: where shall we go?');
    expect(await page.locator('.message.user .who').first().textContent()).toBe('Ken');
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'emulator-group.png'), fullPage: true });
    await page.close();
  });

  it("replies to the bot's message as LINE quotes it: the page shows the quote, and kaiwa gets its id", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(runtime.url);
    await page.fill('#text', 'hello, quote me');
    await page.click('#composer button[type=submit]');
    const answer = page.locator('.message.bot', { hasText: 'hello, quote me' }).last();
    await answer.waitFor({ timeout: 10_000 });

    await answer.locator('.reply-to').click();
    expect(await page.locator('#quoting').isVisible()).toBe(true);
    expect(await page.locator('#quoting-text').textContent()).toContain('Replying to kaiwa:');
    await page.fill('#text', 'what do you mean?');
    await page.click('#composer button[type=submit]');

    const mine = page.locator('.message.user', { hasText: 'what do you mean?' }).last();
    await mine.waitFor({ timeout: 10_000 });
    expect(await mine.locator('.quote').textContent()).toContain('kaiwa: ');
    expect(await page.locator('#quoting').isVisible()).toBe(false);
    const botMessage = runtime
      .emulator!.entries()
      .findLast((entry) => entry.from === 'bot' && entry.text.includes('hello, quote me'));
    const chatId = botMessage!.chatId;
    await until(async () =>
      (await storedHistory(store, chatId)).some(
        (entry) => entry.role === 'user' && entry.quotedMessageId === botMessage!.id,
      ),
    );
    expect(problems).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'emulator-quote.png'), fullPage: true });
    await page.close();
  });

  it('plays faults, standby mode, a slow webhook and a redelivery from its controls', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(runtime.url);
    await page.click('#controls summary');
    const status = (text: string) =>
      page.locator('#control-status', { hasText: text }).waitFor({ timeout: 10_000 });

    await page.selectOption('#fault-kind', 'drop-connection');
    await page.fill('#fault-times', '2');
    await page.selectOption('#fault-endpoint', '/v2/bot/message/push');
    await page.check('#fault-delivered');
    await page.click('#inject-fault');
    await status('drop × 2 on /v2/bot/message/push (delivered first)');
    expect(runtime.emulator!.faults.pending()).toEqual([
      expect.objectContaining({
        kind: 'drop-connection',
        remaining: 2,
        endpoint: '/v2/bot/message/push',
        delivered: true,
      }),
    ]);
    await page.selectOption('#fault-kind', 'monthly-limit');
    await page.click('#inject-fault');
    await status('(delivered first); 429 monthly × 2 on /v2/bot/message/push');
    await page.click('#clear-faults');
    await status('no faults waiting');
    expect(runtime.emulator!.faults.pending()).toEqual([]);

    await page.selectOption('#mode', 'standby');
    await page.fill('#text', 'only listen');
    await page.click('#composer button[type=submit]');
    await until(() => runtime.emulator!.isStandby(LineEmulator.idFor('user', 'Aiko')));
    await page.selectOption('#mode', 'active');

    await page.fill('#slow-delay', '2500');
    await page.click('#slow-webhook');
    await status('slow webhook 2500 ms × 1');
    await page.fill('#text', 'take your time');
    await page.click('#composer button[type=submit]');
    await status('the webhook failed (request_timeout)');

    await page.click('#redeliver');
    await status('200');
    expect(await page.locator('#control-status').textContent()).toMatch(/^redelivered [0-9A-Z]{26}: 200$/);
    expect(problems).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'emulator-controls.png'), fullPage: true });
    await page.close();
  });
});
