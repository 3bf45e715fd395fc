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
    cache: { ttlSeconds: 3600, refreshBeforeSeconds: 600, retryAfterMs: 5 * MINUTE },
    ...options.model,
  });
  return { fake, model, time };
}

// About 1300 tokens by characters / 4: above the 1024 minimum of Flash models.
const persona = `You are Kaiwa, a helpful LINE bot. ${'Be kind and brief. '.repeat(270)}`;
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

describe('GeminiModel context cache', () => {
  it('caches the prompt and every tool, then sends only cachedContent and contents', async () => {
    const { fake, model } = await setUp();
    fake.enqueue(replyAnswer('one'), replyAnswer('two'));

    await model.generate(request());
    const response = await model.generate(request());

    const creates = fake.requestsTo('POST', '/v1beta/cachedContents');
    expect(creates).toHaveLength(1);
    expect(creates[0]?.body).toMatchObject({
      model: 'models/gemini-2.5-flash',
      ttl: '3600s',
      systemInstruction: { parts: [{ text: persona }] },
      tools: [{ functionDeclarations: [{ name: 'reply', parametersJsonSchema: reply.parameters }] }],
    });
    for (const body of fake.generateBodies) {
      expect(Object.keys(body).sort()).toEqual(['cachedContent', 'contents', 'generationConfig']);
      expect(body.cachedContent).toBe(fake.cacheNames[0]);
    }
    expect(fake.rejections).toEqual([]);
    expect(response.usage.cachedTokens).toBeGreaterThan(1000);
  });

  it('does not cache a prompt below the minimum size', async () => {
    const { fake, model } = await setUp();
    fake.enqueue(replyAnswer('one'));

    await model.generate(request({ systemInstruction: 'You are a small bot.' }));

    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toEqual([]);
    expect(fake.generateBodies[0]?.systemInstruction).toEqual({
      role: 'user',
      parts: [{ text: 'You are a small bot.' }],
    });
    expect(fake.generateBodies[0]?.tools).toHaveLength(1);
  });

  it('honours a configured minimum', async () => {
    const { fake, model } = await setUp({ model: { cache: { minTokens: 100_000 } } });
    fake.enqueue(replyAnswer('one'));

    await model.generate(request());

    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toEqual([]);
  });

  it('extends the TTL before it ends, so the cache outlives its first hour', async () => {
    const { fake, model, time } = await setUp();
    fake.enqueue(replyAnswer('one'), replyAnswer('two'), replyAnswer('three'), replyAnswer('four'));
    await model.generate(request());

    time.advance(40 * MINUTE); // 20 minutes left: no refresh yet
    await model.generate(request());
    expect(fake.requestsTo('PATCH', '/v1beta/cachedContents/')).toHaveLength(0);

    time.advance(15 * MINUTE); // 5 minutes left: refresh
    await model.generate(request());
    time.advance(30 * MINUTE); // past the first hour, within the refreshed one
    await model.generate(request());

    const refreshes = fake.requestsTo('PATCH', '/v1beta/cachedContents/');
    expect(refreshes.map((refresh) => refresh.body)).toEqual([{ ttl: '3600s' }]);
    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toHaveLength(1);
    expect(fake.rejections).toEqual([]);
    expect(fake.generateBodies.every((body) => body.cachedContent === fake.cacheNames[0])).toBe(true);
  });

  it('creates a new cache when the process slept past the TTL, instead of using the dead one', async () => {
    const { fake, model, time } = await setUp();
    fake.enqueue(replyAnswer('one'), replyAnswer('two'));
    await model.generate(request());
    const first = fake.cacheNames[0];

    time.advance(2 * 60 * MINUTE);
    await model.generate(request());

    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toHaveLength(2);
    expect(fake.generateBodies[1]?.cachedContent).not.toBe(first);
    expect(fake.rejections).toEqual([]);
  });

  it('uses a new cache when the tools change, and deletes the superseded one', async () => {
    const { fake, model } = await setUp();
    fake.enqueue(replyAnswer('one'), replyAnswer('two'));
    await model.generate(request());
    const oldCache = fake.cacheNames[0];

    await model.generate(request({ tools: [reply, weather] }));

    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toHaveLength(2);
    expect(fake.requestsTo('DELETE', '/v1beta/cachedContents/').map((request) => request.path)).toEqual([
      `/v1beta/${oldCache}`,
    ]);
    expect(fake.cacheNames).toHaveLength(1);
    expect(fake.generateBodies[1]?.cachedContent).toBe(fake.cacheNames[0]);
    expect(fake.generateBodies[1]?.cachedContent).not.toBe(oldCache);
  });

  it.each([
    ['403, the cache gone', (fake: FakeGeminiServer) => fake.dropCaches()],
    [
      '404 on use',
      (fake: FakeGeminiServer) => {
        fake.enqueue(apiError(404, 'NOT_FOUND', 'Cached content not found'));
      },
    ],
  ])('falls back to an uncached request on %s, and recreates the cache later', async (_, breakCache) => {
    const { fake, model, time } = await setUp();
    fake.enqueue(replyAnswer('one'));
    await model.generate(request());

    breakCache(fake);
    fake.enqueue(replyAnswer('uncached'), replyAnswer('still uncached'), replyAnswer('cached again'));
    const fallback = await model.generate(request());
    time.advance(MINUTE);
    await model.generate(request());
    time.advance(5 * MINUTE);
    await model.generate(request());

    expect(fallback.calls[0]?.args).toEqual({ message: 'uncached' });
    const bodies = fake.generateBodies.slice(1);
    expect(
      bodies.map((body) => (body.cachedContent ? 'cached' : body.tools ? 'uncached' : 'neither')),
    ).toEqual([
      'cached', // fails because of the cache
      'uncached', // the same call, at once
      'uncached', // within retryAfterMs: no new cache yet
      'cached', // a new cache
    ]);
    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toHaveLength(2);
    expect(fake.cacheNames).toHaveLength(1); // the broken one deleted, if it still existed
    expect(bodies[3]?.cachedContent).toBe(fake.cacheNames[0]);
  });

  it('goes uncached when Gemini refuses to create the cache, and does not retry at every call', async () => {
    const { fake, model } = await setUp({ server: { minCacheTokens: 50_000 } });
    fake.enqueue(replyAnswer('one'), replyAnswer('two'));

    await model.generate(request());
    const response = await model.generate(request());

    expect(response.calls[0]?.args).toEqual({ message: 'two' });
    expect(fake.rejections).toEqual([]);
    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toHaveLength(1);
    expect(
      fake.generateBodies.every((body) => body.cachedContent === undefined && body.tools !== undefined),
    ).toBe(true);
  });

  it('shares one creation between concurrent calls', async () => {
    const { fake, model } = await setUp();
    fake.enqueue(replyAnswer('a'), replyAnswer('b'), replyAnswer('c'));

    await Promise.all([model.generate(request()), model.generate(request()), model.generate(request())]);

    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toHaveLength(1);
    expect(new Set(fake.generateBodies.map((body) => body.cachedContent))).toEqual(new Set(fake.cacheNames));
  });

  it('never caches when the cache is off', async () => {
    const { fake, model } = await setUp({ model: { cache: false } });
    fake.enqueue(replyAnswer('one'));

    await model.generate(request());

    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toEqual([]);
  });
});
