import { describe, expect, it } from 'vitest';
import { GeminiConfigError, GeminiModel, geminiOptionsFromEnv } from '../../src/model/index.js';

describe('geminiOptionsFromEnv', () => {
  it('returns undefined without a key or Vertex AI: kaiwa runs the offline model', () => {
    expect(geminiOptionsFromEnv({})).toBeUndefined();
    expect(
      geminiOptionsFromEnv({ GEMINI_API_KEY: '  ', GOOGLE_GENAI_USE_VERTEXAI: 'false' }),
    ).toBeUndefined();
  });

  it('defaults to a current stable Flash model, its own thinking and sampling, and implicit caching only', () => {
    expect(geminiOptionsFromEnv({ GEMINI_API_KEY: 'key' })).toEqual({
      apiKey: 'key',
      model: 'gemini-3.6-flash',
      cache: false,
      retry: {},
    });
  });

  it('reads the thinking level and the sampling parameters, in any case', () => {
    expect(
      geminiOptionsFromEnv({
        GEMINI_API_KEY: 'key',
        GEMINI_THINKING_LEVEL: 'Low',
        GEMINI_TOP_P: '0.9',
        GEMINI_TOP_K: '40',
        GEMINI_MAX_INLINE_BYTES: '8000000',
      }),
    ).toMatchObject({ thinkingLevel: 'low', topP: 0.9, topK: 40, maxInlineBytes: 8_000_000 });
  });

  it('reads every setting', () => {
    const options = geminiOptionsFromEnv({
      GEMINI_API_KEY: 'key',
      GEMINI_MODEL: 'gemini-3-pro-preview',
      GEMINI_BASE_URL: 'http://127.0.0.1:8080',
      GEMINI_TEMPERATURE: '0.7',
      GEMINI_MAX_OUTPUT_TOKENS: '2048',
      GEMINI_THINKING_BUDGET: '-1',
      GEMINI_CACHE: 'on',
      GEMINI_CACHE_MIN_TOKENS: '4096',
      GEMINI_CACHE_TTL_SECONDS: '1800',
      GEMINI_MAX_ATTEMPTS: '3',
      GEMINI_ATTEMPT_TIMEOUT_MS: '20000',
    });

    expect(options).toEqual({
      apiKey: 'key',
      model: 'gemini-3-pro-preview',
      baseUrl: 'http://127.0.0.1:8080',
      temperature: 0.7,
      maxOutputTokens: 2048,
      thinkingBudget: -1,
      cache: { minTokens: 4096, ttlSeconds: 1800 },
      retry: { maxAttempts: 3, attemptTimeoutMs: 20000 },
    });
  });

  it('uses Vertex AI through the SDK’s own variables', () => {
    expect(
      geminiOptionsFromEnv({
        GOOGLE_GENAI_USE_VERTEXAI: 'True',
        GOOGLE_CLOUD_PROJECT: 'my-project',
        GOOGLE_CLOUD_LOCATION: 'asia-northeast1',
        GEMINI_CACHE: 'off',
      }),
    ).toEqual({
      model: 'gemini-3.6-flash',
      vertex: { project: 'my-project', location: 'asia-northeast1' },
      cache: false,
      retry: {},
    });
  });

  it.each([
    [{ GOOGLE_GENAI_USE_VERTEXAI: 'yes' }, 'GOOGLE_GENAI_USE_VERTEXAI'],
    [{ GOOGLE_GENAI_USE_VERTEXAI: 'true' }, 'GOOGLE_CLOUD_PROJECT'],
    [{ GEMINI_API_KEY: 'k', GEMINI_BASE_URL: 'not a url' }, 'GEMINI_BASE_URL'],
    [{ GEMINI_API_KEY: 'k', GEMINI_BASE_URL: 'ftp://example.com' }, 'GEMINI_BASE_URL'],
    [{ GEMINI_API_KEY: 'k', GEMINI_TEMPERATURE: '3' }, 'GEMINI_TEMPERATURE'],
    [{ GEMINI_API_KEY: 'k', GEMINI_MAX_OUTPUT_TOKENS: '12.5' }, 'GEMINI_MAX_OUTPUT_TOKENS'],
    [{ GEMINI_API_KEY: 'k', GEMINI_THINKING_BUDGET: '-2' }, 'GEMINI_THINKING_BUDGET'],
    [{ GEMINI_API_KEY: 'k', GEMINI_CACHE: 'maybe' }, 'GEMINI_CACHE'],
    [{ GEMINI_API_KEY: 'k', GEMINI_CACHE_TTL_SECONDS: '10' }, 'GEMINI_CACHE_TTL_SECONDS'],
    [{ GEMINI_API_KEY: 'k', GEMINI_MODEL: 'gemini 2.5' }, 'GEMINI_MODEL'],
    [{ GEMINI_API_KEY: 'k', GEMINI_THINKING_LEVEL: 'extreme' }, 'GEMINI_THINKING_LEVEL'],
    [{ GEMINI_API_KEY: 'k', GEMINI_TOP_P: '1.5' }, 'GEMINI_TOP_P'],
    [{ GEMINI_API_KEY: 'k', GEMINI_TOP_K: '0' }, 'GEMINI_TOP_K'],
    [{ GEMINI_API_KEY: 'k', GEMINI_MAX_INLINE_BYTES: '30000000' }, 'GEMINI_MAX_INLINE_BYTES'],
    // Gemini takes one of the two, and 2.5 models know no levels.
    [
      { GEMINI_API_KEY: 'k', GEMINI_THINKING_LEVEL: 'low', GEMINI_THINKING_BUDGET: '512' },
      'GEMINI_THINKING_LEVEL',
    ],
    [
      { GEMINI_API_KEY: 'k', GEMINI_MODEL: 'gemini-2.5-flash', GEMINI_THINKING_LEVEL: 'low' },
      'GEMINI_THINKING_LEVEL',
    ],
    // The Pro models refuse a thinking budget of 0.
    [
      { GEMINI_API_KEY: 'k', GEMINI_MODEL: 'gemini-2.5-pro', GEMINI_THINKING_BUDGET: '0' },
      'GEMINI_THINKING_BUDGET',
    ],
  ])('names the bad variable: %o', (env, variable) => {
    const attempt = () => geminiOptionsFromEnv(env);

    expect(attempt).toThrow(GeminiConfigError);
    expect(attempt).toThrow(new RegExp(`^${variable} `));
  });

  it('never puts the API key in an error message', () => {
    expect(() => geminiOptionsFromEnv({ GEMINI_API_KEY: 'secret-key', GEMINI_TEMPERATURE: 'hot' })).toThrow(
      /^GEMINI_TEMPERATURE must be a number from 0 to 2; got "hot"$/,
    );
  });
});

describe('GeminiModel options', () => {
  it('refuses to start without credentials', () => {
    expect(() => new GeminiModel({})).toThrow(GeminiConfigError);
  });
});
