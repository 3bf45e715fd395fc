import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config/index.js';
import type { HistoryEntry } from '../../src/domain/index.js';
import { createLogger } from '../../src/logging/index.js';
import { GeminiConfigError, GeminiModel, geminiOptionsFromEnv } from '../../src/model/index.js';
import { FakeGeminiServer, textAnswer } from '../support/fake-gemini-server.js';

// Vertex AI has three ways in (docs/model.md, "Vertex AI"): a project and location with
// Application Default Credentials, an express-mode API key alone, or a key with a project and
// location. The SDK resolves them differently; the ones that cannot work stop the start.

let server: FakeGeminiServer;
beforeEach(async () => {
  server = await FakeGeminiServer.start({ minCacheTokens: 1 });
});
afterEach(() => server.close());

const hello: HistoryEntry = { role: 'user', eventId: 'e1', text: 'hello', timestamp: 0 };
const request = {
  // Far above any cache minimum, so only the configuration keeps the cache away.
  systemInstruction: `You are a test bot. ${'Be brief. '.repeat(3000)}`,
  history: [hello],
  tools: [],
  signal: new AbortController().signal,
};

describe('Vertex AI configurations', () => {
  it('stops the start when an API key and a project come without a location', () => {
    const env = {
      GOOGLE_GENAI_USE_VERTEXAI: 'true',
      GEMINI_API_KEY: 'test-key',
      GOOGLE_CLOUD_PROJECT: 'kaiwa-prod',
    };

    expect(() => geminiOptionsFromEnv(env)).toThrow(/^GOOGLE_CLOUD_LOCATION is required/);
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(/^invalid configuration: GOOGLE_CLOUD_LOCATION [^\n]+$/);
  });

  it('refuses the same options in code at once, instead of failing every call', () => {
    expect(
      () =>
        new GeminiModel({ apiKey: 'test-key', vertex: { project: 'kaiwa-prod' }, baseUrl: server.baseUrl }),
    ).toThrow(GeminiConfigError);
  });

  it('runs express mode (a key alone) without an explicit cache, and stops the start if one is asked for', async () => {
    const env = { GOOGLE_GENAI_USE_VERTEXAI: 'true', GEMINI_API_KEY: 'test-key' };
    expect(geminiOptionsFromEnv(env)).toMatchObject({ vertex: {}, cache: false });
    expect(() => geminiOptionsFromEnv({ ...env, GEMINI_CACHE: 'on' })).toThrow(/^GEMINI_CACHE /);

    const lines: { message: string }[] = [];
    const logger = createLogger({
      level: 'info',
      write: (line) => lines.push(JSON.parse(line) as { message: string }),
    });
    // Options given in code rather than the environment: the cache is turned off, and says so.
    const model = new GeminiModel({
      apiKey: 'test-key',
      vertex: {},
      baseUrl: server.baseUrl,
      cache: { ttlSeconds: 600 },
      logger,
    });
    server.enqueue(textAnswer('hi'), textAnswer('again'));

    const first = await model.generate(request);
    await model.generate(request);

    expect(first.text).toBe('hi');
    expect(server.requests.map((recorded) => `${recorded.method} ${recorded.path}`)).toEqual([
      'POST /v1beta1/publishers/google/models/gemini-3.6-flash:generateContent',
      'POST /v1beta1/publishers/google/models/gemini-3.6-flash:generateContent',
    ]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'gemini explicit cache off: Vertex AI express mode has no project',
      }),
    );
  });

  it('takes a project and location, with or without a key', () => {
    expect(
      geminiOptionsFromEnv({
        GOOGLE_GENAI_USE_VERTEXAI: 'true',
        GEMINI_API_KEY: 'test-key',
        GOOGLE_CLOUD_PROJECT: 'kaiwa-prod',
        GOOGLE_CLOUD_LOCATION: 'global',
        GEMINI_CACHE: 'on',
      }),
    ).toMatchObject({ vertex: { project: 'kaiwa-prod', location: 'global' }, cache: {} });
    expect(
      geminiOptionsFromEnv({ GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_CLOUD_PROJECT: 'kaiwa-prod' }),
    ).toMatchObject({ vertex: { project: 'kaiwa-prod' } });
  });
});
