import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { emulatorRouter } from '../../src/line/emulator/emulator-router.js';
import { LineEmulator } from '../../src/line/emulator/line-emulator.js';
import { LineSchemas } from '../../src/line/openapi/line-schemas.js';
import { silentLogger } from '../../src/logging/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import { startKaiwa, type KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';
import { until } from '../support/until.js';

// The emulator's webhooks against LINE's documented behaviour (docs/line.md, "The emulator"):
// LINE's 2 s timeout, redelivery, standby mode; every body checked against webhook.yml.

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server | undefined): Promise<void> {
  if (!server?.listening) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

type WebhookEvent = {
  webhookEventId: string;
  timestamp: number;
  mode: string;
  replyToken?: string;
  deliveryContext: { isRedelivery: boolean };
};

/** A bot stand-in: records every webhook body and answers after `delayMs` with `status`. */
async function startReceiver() {
  const received: { destination: string; events: WebhookEvent[] }[] = [];
  const behaviour = { delayMs: 0, status: 200 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as (typeof received)[number]);
      setTimeout(() => response.writeHead(behaviour.status).end(), behaviour.delayMs);
    });
  });
  return { server, url: await listen(server), received, behaviour };
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let emulatorServer: Server;
let emulatorUrl: string;
let emulator: LineEmulator;
let webhookUrl: string;

beforeAll(async () => {
  const schemas = await LineSchemas.load();
  receiver = await startReceiver();
  webhookUrl = `${receiver.url}/webhook`;
  emulator = new LineEmulator({ now: () => Date.now() });
  const app = express();
  app.use(
    emulatorRouter({
      emulator,
      webhookUrl: () => webhookUrl,
      clock: { now: () => Date.now() },
      logger: silentLogger,
      validateWebhook: (body) => {
        const validation = schemas.validateWebhook(body);
        return validation.ok ? [] : validation.errors;
      },
    }),
  );
  emulatorServer = createServer(app);
  emulatorUrl = await listen(emulatorServer);
});
afterAll(async () => {
  await close(emulatorServer);
  await close(receiver.server);
});
afterEach(() => {
  receiver.received.length = 0;
  Object.assign(receiver.behaviour, { delayMs: 0, status: 200 });
  webhookUrl = `${receiver.url}/webhook`;
});

async function api(path: string, body?: unknown, method = 'POST') {
  const response = await fetch(`${emulatorUrl}/emulator/api/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (response.status === 204 ? {} : await response.json()) as Record<string, unknown>,
  };
}

const say = (text: string, extra: Record<string, unknown> = {}) =>
  api('messages', {
    chat: { kind: 'user', name: 'Aiko' },
    userName: 'Aiko',
    action: { type: 'text', text },
    ...extra,
  });

describe('webhooks as LINE sends them', () => {
  it('sends an event in standby mode when asked, valid against webhook.yml, and active again after', async () => {
    const chatId = LineEmulator.idFor('user', 'Aiko');

    const standby = await say('only listen', { mode: 'standby' });
    const standbyNow = emulator.isStandby(chatId);
    const active = await say('now answer');

    expect([standby.status, standby.body.webhookStatus, active.body.webhookStatus]).toEqual([200, 200, 200]);
    expect(receiver.received.map((body) => body.events[0]!.mode)).toEqual(['standby', 'active']);
    expect([standbyNow, emulator.isStandby(chatId)]).toEqual([true, false]);
  });

  it('refuses a mode LINE does not have', async () => {
    const refused = await say('hi', { mode: 'asleep' });
    expect(refused).toEqual({ status: 400, body: { message: 'mode must be active or standby' } });
    expect(receiver.received).toEqual([]);
  });

  it("gives up on a bot that has not answered after LINE's 2 s: request_timeout", async () => {
    receiver.behaviour.delayMs = 3500;
    const started = Date.now();

    const sent = await say('are you there?');
    const elapsed = Date.now() - started;

    expect(sent.body).toMatchObject({ webhookStatus: 0, webhookFailure: 'request_timeout' });
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(3400);
    expect(emulator.entries().at(-1)).toMatchObject({
      violation: true,
      text: 'webhook failed: request_timeout',
    });
  });

  it('names a non-2xx answer error_status_code and an unreachable bot could_not_connect', async () => {
    receiver.behaviour.status = 500;
    const refused = await say('hello');
    const unreachable = createServer();
    webhookUrl = `${await listen(unreachable)}/webhook`;
    await close(unreachable);
    const gone = await say('hello?');

    expect(refused.body).toMatchObject({ webhookStatus: 500, webhookFailure: 'error_status_code' });
    expect(gone.body).toMatchObject({ webhookStatus: 0, webhookFailure: 'could_not_connect' });
  });

  it('redelivers an event when asked: same id, timestamp and reply token, isRedelivery true', async () => {
    receiver.behaviour.status = 500;
    const first = await say('deliver me twice');
    receiver.behaviour.status = 200;

    const byId = await api('redeliver', { webhookEventId: first.body.webhookEventId });
    const byChat = await api('redeliver', { chatId: LineEmulator.idFor('user', 'Aiko') });

    expect([byId.status, byId.body.webhookStatus, byChat.body.webhookEventId]).toEqual([
      200,
      200,
      first.body.webhookEventId,
    ]);
    const [original, ...redelivered] = receiver.received.map((body) => body.events[0]!);
    expect(original!.deliveryContext).toEqual({ isRedelivery: false });
    expect(redelivered).toEqual([
      { ...original, deliveryContext: { isRedelivery: true } },
      { ...original, deliveryContext: { isRedelivery: true } },
    ]);
  });

  it('answers 404 for an event it never sent and 400 without an id', async () => {
    expect((await api('redeliver', { webhookEventId: '01UNKNOWN' })).status).toBe(404);
    expect((await api('redeliver', {})).status).toBe(400);
  });
});

describe('the controls API', () => {
  it('queues, lists and clears faults; refuses one it cannot play', async () => {
    const queued = await api('faults', {
      kind: 'server-error',
      status: 502,
      times: 3,
      endpoint: '/v2/bot/message/push',
    });
    const bad = await api('faults', { kind: 'teapot' });
    const listed = await api('faults', undefined, 'GET');
    await api('faults', undefined, 'DELETE');
    const cleared = await api('faults', undefined, 'GET');

    expect(queued.status).toBe(201);
    expect(bad).toEqual({
      status: 400,
      body: { message: 'kind must be one of too-many-requests, server-error, drop-connection' },
    });
    expect(listed.body.faults).toEqual([
      expect.objectContaining({
        kind: 'server-error',
        status: 502,
        remaining: 3,
        endpoint: '/v2/bot/message/push',
      }),
    ]);
    expect(cleared.body.faults).toEqual([]);
  });

  it('sets and refuses the slow-webhook control', async () => {
    expect((await api('slow-webhook', { delayMs: 2500, times: 2 })).body).toEqual({
      slowWebhook: { delayMs: 2500, remaining: 2 },
    });
    expect((await api('slow-webhook', { delayMs: -1 })).status).toBe(400);
    expect((await api('slow-webhook', { delayMs: 0, times: 0 })).body).toEqual({ slowWebhook: null });
  });
});

describe('kaiwa in emulator mode under the controls', () => {
  let runtime: KaiwaRuntime;
  beforeAll(async () => {
    runtime = await startKaiwa(loadConfig({ PORT: '0', STORE: 'memory' }), {
      store: new MemorySourceStore(),
      logger: silentLogger,
    });
  });
  afterAll(() => runtime.close());

  it('a bot that answers after 2 s gets request_timeout; the redelivery is answered 200 and the user gets one answer', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${runtime.url}/emulator/api/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (response) => (await response.json()) as Record<string, unknown>);
    const chatId = LineEmulator.idFor('user', 'Ken');
    await post('slow-webhook', { delayMs: 2500, times: 1 });

    const sent = await post('messages', {
      chat: { kind: 'user', name: 'Ken' },
      userName: 'Ken',
      action: { type: 'text', text: 'slow day' },
    });
    await until(() =>
      runtime.emulator!.entries().some((entry) => entry.chatId === chatId && entry.from === 'bot'),
    );
    const redelivered = await post('redeliver', { webhookEventId: sent.webhookEventId });
    await runtime.host.whenSettled();

    expect(sent).toMatchObject({ webhookStatus: 0, webhookFailure: 'request_timeout' });
    expect(redelivered).toMatchObject({ webhookStatus: 200 });
    expect(
      runtime.emulator!.entries().filter((entry) => entry.chatId === chatId && entry.from === 'bot'),
    ).toHaveLength(1);
  });
});
