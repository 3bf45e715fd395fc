import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, MEDIA_TYPE_CHOICES } from '../../src/config/index.js';
import { checkableImageTypes } from '../../src/line/media/index.js';

describe('configuration', () => {
  it('starts with no environment at all: emulator, offline model, file store, port 3000', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      line: {
        mode: 'emulator',
        apiBaseUrl: 'https://api.line.me',
        dataApiBaseUrl: 'https://api-data.line.me',
      },
      model: 'offline',
      store: { kind: 'sqlite', dataDir: '.data' },
      logLevel: 'info',
      conversation: { maxModelCalls: 10, queuePolicy: 'queue', maxQueuedTurns: 20 },
      weatherBaseUrl: 'https://wttr.in',
    });
  });

  it('reads a real channel, Gemini and the other fixed names', () => {
    const config = loadConfig({
      LINE_CHANNEL_SECRET: 'secret',
      LINE_CHANNEL_ACCESS_TOKEN: 'token',
      LINE_API_BASE_URL: 'http://127.0.0.1:9000/',
      GEMINI_API_KEY: 'key',
      STORE: 'memory',
      PORT: '8080',
      LOG_LEVEL: 'debug',
      KAIWA_QUEUE_POLICY: 'merge',
    });
    expect(config).toMatchObject({
      port: 8080,
      line: {
        mode: 'channel',
        channelSecret: 'secret',
        channelAccessToken: 'token',
        apiBaseUrl: 'http://127.0.0.1:9000',
      },
      model: 'gemini',
      store: { kind: 'memory' },
      logLevel: 'debug',
      conversation: { queuePolicy: 'merge' },
    });
  });

  it('uses Gemini through Vertex AI without an API key', () => {
    expect(
      loadConfig({ GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_CLOUD_PROJECT: 'kaiwa-prod' }),
    ).toMatchObject({
      model: 'gemini',
      gemini: { vertex: { project: 'kaiwa-prod' } },
    });
  });

  it('limits what LINE may cost: call and download timeouts, image bytes, types, concurrency and cache', () => {
    expect(loadConfig({}).lineBehaviour).toMatchObject({
      requestTimeoutMs: 10_000,
      mediaMaxBytes: 10 * 1024 * 1024,
      mediaTimeoutMs: 20_000,
      mediaConcurrency: 4,
      mediaCacheBytes: 32 * 1024 * 1024,
      mediaCacheTtlMs: 120_000,
      mediaTypes: ['image/jpeg', 'image/png', 'image/webp'],
    });
    expect(loadConfig({ KAIWA_MEDIA_TYPES: 'image/PNG, image/gif' }).lineBehaviour.mediaTypes).toEqual([
      'image/png',
      'image/gif',
    ]);
  });

  it('offers only media types whose bytes kaiwa can recognise', () => {
    expect(checkableImageTypes).toEqual(expect.arrayContaining([...MEDIA_TYPE_CHOICES]));
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT', 'must be a whole number'],
    [{ PORT: '70000' }, 'PORT', 'between 0 and 65535'],
    [{ LINE_CHANNEL_SECRET: 'only-the-secret' }, 'LINE_CHANNEL_ACCESS_TOKEN', 'must be set too'],
    [{ LINE_CHANNEL_ACCESS_TOKEN: 'only-the-token' }, 'LINE_CHANNEL_SECRET', 'must be set too'],
    [{ LINE_API_BASE_URL: 'ftp://example.com' }, 'LINE_API_BASE_URL', 'http(s) URL'],
    [{ WEATHER_BASE_URL: 'not a url' }, 'WEATHER_BASE_URL', 'http(s) URL'],
    [{ STORE: 'postgres' }, 'STORE', 'must be one of memory, sqlite, dynamodb'],
    [{ STORE: 'file' }, 'STORE', 'retired: use sqlite'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', 'must be one of'],
    [{ KAIWA_MAX_MODEL_CALLS: '0' }, 'KAIWA_MAX_MODEL_CALLS', 'between 1 and 100'],
    [{ GOOGLE_GENAI_USE_VERTEXAI: 'maybe' }, 'GOOGLE_GENAI_USE_VERTEXAI', 'true or false'],
    [{ GOOGLE_GENAI_USE_VERTEXAI: 'true' }, 'GOOGLE_CLOUD_PROJECT', 'is required'],
    [{ GEMINI_API_KEY: 'k', GEMINI_TEMPERATURE: 'hot' }, 'GEMINI_TEMPERATURE', ''],
    [{ KAIWA_MEDIA_TYPES: 'image/png,image/svg+xml' }, 'KAIWA_MEDIA_TYPES', 'must list types from'],
    [{ KAIWA_MEDIA_TYPES: ' , ' }, 'KAIWA_MEDIA_TYPES', 'must list types from'],
    [{ KAIWA_MEDIA_CONCURRENCY: '0' }, 'KAIWA_MEDIA_CONCURRENCY', 'between 1 and 64'],
    [{ KAIWA_LINE_TIMEOUT_MS: '10' }, 'KAIWA_LINE_TIMEOUT_MS', 'between 100 and 120000'],
    // Older events are refused as possible replays (docs/security.md): no stale context that old.
    [{ KAIWA_STALE_EVENT_MS: String(7 * 86_400_000) }, 'KAIWA_STALE_EVENT_MS', 'between 60000 and 518400000'],
    // A side effect starts only while the lease covers its timeout (docs/runtime.md).
    [{ KAIWA_LEASE_MS: '3000' }, 'KAIWA_LEASE_MS', 'longer than the longest side effect'],
    [
      { KAIWA_LEASE_MS: '5000', KAIWA_LINE_TIMEOUT_MS: '1000', KAIWA_TOOL_TIMEOUT_MS: '5000' },
      'KAIWA_LEASE_MS',
      '5000 ≤ 5000',
    ],
  ])('rejects %o naming %s', (env, variable, reason) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ variable });
    expect((error as Error).message).toContain(variable);
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).not.toContain('\n');
  });
});
