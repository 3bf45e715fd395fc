import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryEntry, InboxItem } from '../../src/domain/index.js';
import { signBody } from '../../src/line/emulator/webhook-sender.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, callTools, type ModelRequest } from '../../src/model/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import { DEEPLY_NESTED, serialize } from '../support/hostile-events.js';
import { CHANNEL_SECRET, startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';
import { until } from '../support/until.js';
import { botUserId, webhookEventFixtures } from '../support/webhook-fixtures.js';

/**
 * A bounded fuzz run at the webhook edge: events of every kind LINE sends, mutated the way a
 * fuzzer does (wrong types, missing fields, huge and deeply nested values, odd ids, unknown
 * types), signed well and badly. No 5xx, nothing malformed reaches the store, no stray
 * rejection — and a normal message afterwards is answered.
 */

const EVENTS = 2000;
const PER_BODY = 20;

/** A small seeded generator, so a failure replays exactly. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const odd: Json[] = [
  null,
  0,
  -1,
  1e308,
  1.5,
  true,
  '',
  'x',
  [],
  {},
  ['U' + 'a'.repeat(32)],
  { toString: 'x' },
  '../../inbox',
  'U' + 'G'.repeat(32),
  'C' + 'a'.repeat(33),
  'x'.repeat(30_000),
  DEEPLY_NESTED,
  '\u0000\ud800',
];

/** Every path to a value inside `value`: `[['message', 'text'], ['source'], …]`. */
function pathsOf(value: Json, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, item]) => pathsOf(item, [...prefix, key]))];
}

function mutate(event: Json, rng: ReturnType<typeof random>): Json {
  const copy = structuredClone(event) as { [key: string]: Json };
  const mutations = 1 + Math.floor(rng.next() * 3);
  for (let count = 0; count < mutations; count++) {
    const path = rng.pick(pathsOf(copy).filter((candidate) => candidate.length > 0));
    const parent = path
      .slice(0, -1)
      .reduce<Json>((node, key) => (node as Record<string, Json>)[key]!, copy) as
      Record<string, Json> | Json[];
    const key = path[path.length - 1]!;
    const choice = rng.next();
    if (choice < 0.15 && !Array.isArray(parent)) delete parent[key];
    else if (choice < 0.25 && key === 'type')
      (parent as Record<string, Json>)[key] = `future${Math.floor(rng.next() * 5)}`;
    else if (choice < 0.3) (parent as Record<string, Json>)[`extra${count}`] = structuredClone(rng.pick(odd));
    else (parent as Record<string, Json>)[key] = structuredClone(rng.pick(odd));
  }
  return copy;
}

const lineId = /^[UCR][0-9a-f]{32}$/;

class RecordingStore extends MemorySourceStore {
  readonly acceptedItems: InboxItem[] = [];
  override accept(item: InboxItem) {
    this.acceptedItems.push(item);
    return super.accept(item);
  }
}

let running: Awaited<ReturnType<typeof startKaiwaWithFakeLine>>;
const store = new RecordingStore();
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  // Skips everything, except the plain "ping" at the end, which it answers.
  const model = new ScriptedModel(
    [
      (request: ModelRequest) => {
        const last = request.history.findLast((entry: HistoryEntry) => entry.role === 'user');
        return last?.role === 'user' && last.text === 'ping'
          ? callReply('pong')
          : callTools(['skip', { reason: 'fuzz' }]);
      },
    ],
    { repeatLast: true },
  );
  running = await startKaiwaWithFakeLine({ model, store, overrides: { logger: silentLogger } });
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await running.close();
});

describe('webhook fuzz', () => {
  it(`takes ${EVENTS} mutated events without a 5xx, and stores only well-formed ones`, async () => {
    const rng = random(15);
    const fixtures = Object.values(webhookEventFixtures) as unknown as Json[];
    const statuses = new Map<number, number>();
    for (let sent = 0, body = 0; sent < EVENTS; sent += PER_BODY, body++) {
      const events = Array.from({ length: PER_BODY }, (_, index) => {
        const event = mutate(rng.pick(fixtures), rng) as Record<string, Json>;
        // Each its own event id, so claims do not hide what validation let through.
        if (typeof event.webhookEventId === 'string')
          event.webhookEventId = `01FUZZ${body}x${index}`.padEnd(26, '0');
        return event;
      });
      const text = serialize({ destination: botUserId, events });
      const signed = rng.next() > 0.1;
      const response = await running.post(text, {
        'x-line-signature': signed ? signBody(text, CHANNEL_SECRET) : signBody(text, 'not the secret'),
      });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      expect(response.status).toBe(!signed ? 401 : Buffer.byteLength(text) > 1024 * 1024 ? 413 : 200);
    }
    await running.kaiwa.host.whenSettled();

    expect([...statuses.keys()].every((status) => status < 500)).toBe(true);
    expect(store.acceptedItems.length).toBeGreaterThan(0);
    for (const item of store.acceptedItems) {
      expect(item.source.id).toMatch(lineId);
      if ('text' in item) expect(typeof item.text).toBe('string');
      // JSON.stringify escapes a lone surrogate (a pair stays as it is): none may be stored, as it
      // would go to the model with every later request of the chat.
      expect(JSON.stringify(item)).not.toMatch(/\\ud[89a-f]/i);
      if ('sender' in item && item.sender) expect(item.sender.userId).toMatch(lineId);
    }
    expect(unhandled).toEqual([]);
  });

  it('answers a normal message afterwards', async () => {
    const event = textEvent(running.line, { type: 'user', userId: 'U' + 'e'.repeat(32) }, 'ping');
    expect((await running.post(JSON.stringify({ destination: botUserId, events: [event] }))).status).toBe(
      200,
    );
    const reply = await until(() =>
      running.line
        .requestsTo('/v2/bot/message/reply')
        .find((request) => JSON.stringify(request.body).includes('pong')),
    );
    expect(reply).toBeDefined();
  });
});
