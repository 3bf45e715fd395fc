import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import {
  GeminiModel,
  type GeminiModelOptions,
  type ModelRequest,
  type ToolDeclaration,
} from '../../src/model/index.js';
import {
  apiError,
  FakeGeminiServer,
  replyAnswer,
  type FakeGeminiServerOptions,
} from '../support/fake-gemini-server.js';
import { until } from '../support/until.js';

// The explicit context cache (docs/model.md, "Context cache"): made beside the requests, used
// only once ready, measured with countTokens once per prefix, never retried every minute.

const MINUTE = 60_000;

/** One clock for the adapter and the fake, so TTLs are checked on both sides. */
function fakeTime() {
  let now = Date.UTC(2026, 10, 22, 10, 0);
  return { clock: { now: () => now }, advance: (ms: number) => (now += ms) };
}

let server: FakeGeminiServer | undefined;
afterEach(() => server?.close());

async function setUp(
  options: { model?: Partial<GeminiModelOptions>; server?: FakeGeminiServerOptions } = {},
) {
  const time = fakeTime();
  const fake = await FakeGeminiServer.start({ now: time.clock.now, ...options.server });
  server = fake;
  const model = new GeminiModel({
    apiKey: 'test-key',
    baseUrl: fake.baseUrl,
    clock: time.clock,
    random: () => 0,
    cache: { ttlSeconds: 3600, refreshBeforeSeconds: 600, retryAfterMs: 10 * MINUTE },
    ...options.model,
  });
  return { fake, model, time };
}

// About 5,400 tokens (four ASCII characters each): above 3.6 Flash's 4,096-token minimum.
const persona = `You are Kaiwa, a helpful LINE bot. ${'Be kind and brief. '.repeat(1130)}`;
// 4,500 Japanese characters: 4,500 tokens to Gemini, but 1,125 by characters ÷ 4.
const japanesePersona = `あなたは親切なLINEボットです。${'短く優しく答えてください。'.repeat(346)}`;
const reply: ToolDeclaration = {
  name: 'reply',
  description: 'Send a message to the user.',
  parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  response: { type: 'object', properties: { status: { type: 'string' } } },
};
const weather: ToolDeclaration = {
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};
const history: HistoryEntry[] = [{ role: 'user', eventId: 'e1', text: 'hello', timestamp: 0 }];

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    systemInstruction: persona,
    history,
    tools: [reply],
    signal: new AbortController().signal,
    ...overrides,
  };
}

const kinds = (fake: FakeGeminiServer) =>
  fake.generateBodies.map((body) => (body.cachedContent ? 'cached' : body.tools ? 'uncached' : 'neither'));
const creates = (fake: FakeGeminiServer) => fake.requestsTo('POST', '/v1beta/cachedContents');
const counts = (fake: FakeGeminiServer) =>
  fake.requests.filter((recorded) => recorded.path.endsWith(':countTokens'));

describe('GeminiModel context cache', () => {
  it('never makes a request wait for the cache: the first goes uncached while the cache is made', async () => {
    const { fake, model } = await setUp({
      model: { cache: { operationTimeoutMs: 60_000 } },
    });
    fake.cacheCreationDelayMs = 2_000; // a slow creation
    fake.enqueue(replyAnswer('one'));

    const response = await model.generate(request());

    // Answered while the creation is still outstanding.
    expect(fake.cacheNames).toEqual([]);
    expect(response.calls[0]?.args).toEqual({ message: 'one' });
    expect(kinds(fake)).toEqual(['uncached']);
    await until(() => creates(fake).length === 1);
  });

  it('caches the prompt and every tool once ready, then sends only cachedContent and contents', async () => {
    const { fake, model } = await setUp();
    fake.enqueue(replyAnswer('one'), replyAnswer('two'));

    await model.generate(request());
    await model.cacheIdle();
    const response = await model.generate(request());

    expect(creates(fake)).toHaveLength(1);
    expect(creates(fake)[0]?.body).toMatchObject({
      model: 'models/gemini-3.6-flash',
      ttl: '3600s',
      systemInstruction: { parts: [{ text: persona }] },
      tools: [{ functionDeclarations: [{ name: 'reply', parametersJsonSchema: reply.parameters }] }],
    });
    expect(kinds(fake)).toEqual(['uncached', 'cached']);
    expect(
      Object.keys(fake.generateBodies[1]!)
        .filter((key) => key !== 'generationConfig')
        .sort(),
    ).toEqual(['cachedContent', 'contents']);
    expect(fake.rejections).toEqual([]);
    expect(response.usage.cachedTokens).toBeGreaterThan(4096);
  });

  it('measures a Japanese prompt with countTokens, where characters ÷ 4 would find it too small', async () => {
    const { fake, model } = await setUp();
    fake.enqueue(replyAnswer('one'), replyAnswer('two'));

    await model.generate(request({ systemInstruction: japanesePersona }));
    await model.cacheIdle();
    await model.generate(request({ systemInstruction: japanesePersona }));

    expect(counts(fake)).toHaveLength(1);
    expect(creates(fake)).toHaveLength(1);
    expect(kinds(fake)).toEqual(['uncached', 'cached']);
  });

  it('counts a prefix once, and never asks for a cache below the minimum again', async () => {
    const { fake, model, time } = await setUp();
    fake.enqueue(replyAnswer('one'), replyAnswer('two'), replyAnswer('three'));

    await model.generate(request({ systemInstruction: 'You are a small bot.' }));
    await model.cacheIdle();
    await model.generate(request({ systemInstruction: 'You are a small bot.' }));
    time.advance(3 * 60 * MINUTE);
    await model.generate(request({ systemInstruction: 'You are a small bot.' }));
    await model.cacheIdle();

    expect(counts(fake)).toHaveLength(1);
    expect(creates(fake)).toEqual([]);
    expect(kinds(fake)).toEqual(['uncached', 'uncached', 'uncached']);
  });

  it('follows the model’s minimum: 2,048 tokens for Gemini 2.5 Flash', async () => {
    const { fake, model } = await setUp({ model: { model: 'gemini-2.5-flash' } });
    // About 3,000 tokens: below 3.6 Flash's minimum, above 2.5 Flash's.
    const mid = `You are Kaiwa. ${'Be kind and brief. '.repeat(630)}`;
    fake.enqueue(replyAnswer('one'));

    await model.generate(request({ systemInstruction: mid }));
    await model.cacheIdle();

    expect(creates(fake)).toHaveLength(1);
  });

  it('honours a configured minimum', async () => {
    const { fake, model } = await setUp({ model: { cache: { minTokens: 100_000 } } });
    fake.enqueue(replyAnswer('one'));

    await model.generate(request());
    await model.cacheIdle();

    expect(creates(fake)).toEqual([]);
  });

  it('does not try again when Gemini itself finds the cache too small', async () => {
    const { fake, model, time } = await setUp({ server: { minCacheTokens: 50_000 } });
    fake.enqueue(replyAnswer('one'), replyAnswer('two'));

    await model.generate(request());
    await model.cacheIdle();
    time.advance(60 * MINUTE);
    const response = await model.generate(request());
    await model.cacheIdle();

    expect(response.calls[0]?.args).toEqual({ message: 'two' });
    expect(creates(fake)).toHaveLength(1);
    expect(fake.rejections).toEqual([]);
    expect(kinds(fake)).toEqual(['uncached', 'uncached']);
  });

  it('extends the TTL beside the requests, so the cache outlives its first hour', async () => {
    const { fake, model, time } = await setUp();
    fake.enqueue(...['one', 'two', 'three', 'four', 'five'].map(replyAnswer));
    await model.generate(request());
    await model.cacheIdle();

    time.advance(40 * MINUTE); // 20 minutes left: no refresh yet
    await model.generate(request());
    expect(fake.requestsTo('PATCH', '/v1beta/cachedContents/')).toHaveLength(0);

    time.advance(15 * MINUTE); // 5 minutes left: refresh, and this request still uses the cache
    await model.generate(request());
    await model.cacheIdle();
    time.advance(30 * MINUTE); // past the first hour, within the refreshed one
    await model.generate(request());

    const refreshes = fake.requestsTo('PATCH', '/v1beta/cachedContents/');
    expect(refreshes.map((refresh) => refresh.body)).toEqual([{ ttl: '3600s' }]);
    expect(creates(fake)).toHaveLength(1);
    expect(fake.rejections).toEqual([]);
    expect(kinds(fake)).toEqual(['uncached', 'cached', 'cached', 'cached']);
  });

  it('goes uncached when the process slept past the TTL, and makes a new cache without counting again', async () => {
    const { fake, model, time } = await setUp();
    fake.enqueue(replyAnswer('one'), replyAnswer('two'), replyAnswer('three'));
    await model.generate(request());
    await model.cacheIdle();
    const first = fake.cacheNames[0];

    time.advance(2 * 60 * MINUTE);
    await model.generate(request());
    await model.cacheIdle();
    await model.generate(request());

    expect(kinds(fake)).toEqual(['uncached', 'uncached', 'cached']);
    expect(fake.generateBodies[2]?.cachedContent).not.toBe(first);
    expect(creates(fake)).toHaveLength(2);
    expect(counts(fake)).toHaveLength(1);
    expect(fake.rejections).toEqual([]);
  });

  it('makes a new cache when the tools change, never uses the old one for them, and deletes it', async () => {
    const { fake, model } = await setUp();
    fake.enqueue(replyAnswer('one'), replyAnswer('two'), replyAnswer('three'));
    await model.generate(request());
    await model.cacheIdle();
    const oldCache = fake.cacheNames[0];

    await model.generate(request({ tools: [reply, weather] }));
    await model.cacheIdle();
    await model.generate(request({ tools: [reply, weather] }));

    expect(kinds(fake)).toEqual(['uncached', 'uncached', 'cached']);
    expect(creates(fake)).toHaveLength(2);
    expect(fake.requestsTo('DELETE', '/v1beta/cachedContents/').map((recorded) => recorded.path)).toEqual([
      `/v1beta/${oldCache}`,
    ]);
    expect(fake.cacheNames).toHaveLength(1);
    expect(fake.generateBodies[2]?.cachedContent).toBe(fake.cacheNames[0]);
  });

  it.each([
    ['403, the cache gone', (fake: FakeGeminiServer) => fake.dropCaches()],
    [
      '404 on use',
      (fake: FakeGeminiServer) => {
        fake.enqueue(apiError(404, 'NOT_FOUND', 'Cached content not found'));
      },
    ],
  ])(
    'falls back to an uncached request on %s, and makes a new cache after the retry delay',
    async (_, breakCache) => {
      const { fake, model, time } = await setUp();
      fake.enqueue(replyAnswer('one'), replyAnswer('two'));
      await model.generate(request());
      await model.cacheIdle();
      await model.generate(request());

      breakCache(fake);
      fake.enqueue(replyAnswer('uncached'), replyAnswer('still uncached'), replyAnswer('new cache'));
      const fallback = await model.generate(request());
      time.advance(MINUTE);
      await model.generate(request()); // within retryAfterMs: no new cache yet
      await model.cacheIdle();
      time.advance(10 * MINUTE);
      await model.generate(request()); // starts a new cache; goes uncached itself
      await model.cacheIdle();
      fake.enqueue(replyAnswer('cached again'));
      await model.generate(request());

      expect(fallback.calls[0]?.args).toEqual({ message: 'uncached' });
      expect(kinds(fake).slice(2)).toEqual([
        'cached', // fails because of the cache
        'uncached', // the same call, at once
        'uncached',
        'uncached',
        'cached',
      ]);
      expect(creates(fake)).toHaveLength(2);
      expect(fake.cacheNames).toHaveLength(1); // the broken one deleted, if it still existed
    },
  );

  it('waits the retry delay after a failed creation, not a minute', async () => {
    const { fake, model, time } = await setUp();
    fake.cacheCreationFailures.push(apiError(500, 'INTERNAL', 'An internal error has occurred.'));
    fake.enqueue(...['one', 'two', 'three', 'four'].map(replyAnswer));

    await model.generate(request());
    await model.cacheIdle();
    time.advance(2 * MINUTE);
    await model.generate(request());
    await model.cacheIdle();
    expect(creates(fake)).toHaveLength(1);

    time.advance(10 * MINUTE);
    await model.generate(request());
    await model.cacheIdle();
    await model.generate(request());

    expect(creates(fake)).toHaveLength(2);
    expect(counts(fake)).toHaveLength(1);
    expect(kinds(fake)).toEqual(['uncached', 'uncached', 'uncached', 'cached']);
  });

  it('shares one creation between concurrent calls', async () => {
    const { fake, model } = await setUp();
    fake.enqueue(replyAnswer('a'), replyAnswer('b'), replyAnswer('c'));

    await Promise.all([model.generate(request()), model.generate(request()), model.generate(request())]);
    await model.cacheIdle();

    expect(creates(fake)).toHaveLength(1);
    expect(counts(fake)).toHaveLength(1);
  });

  it('never caches when the cache is off', async () => {
    const { fake, model } = await setUp({ model: { cache: false } });
    fake.enqueue(replyAnswer('one'));

    await model.generate(request());
    await model.cacheIdle();

    expect(creates(fake)).toEqual([]);
    expect(counts(fake)).toEqual([]);
  });
});
