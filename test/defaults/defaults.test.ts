import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readWebhookConfig } from '../../src/aws/lambda-config.js';
import { loadConfig } from '../../src/config/index.js';
import { defaults } from '../../src/defaults/defaults.js';
import { defaultConversationSettings } from '../../src/machines/index.js';
import { defaultHistoryLimits } from '../../src/domain/history-bounds.js';
import { geminiOptionsFromEnv } from '../../src/model/index.js';
import { resolveCacheOptions, resolveRetryOptions } from '../../src/model/gemini/gemini-options.js';

/** The README's configuration table: variable → the default cell, backticks dropped. */
function readmeDefaults(): Map<string, string> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'));
  const table = section.slice(0, section.indexOf('\n## ', 1));
  const documented = new Map<string, string>();
  for (const line of table.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const variables = [...(cells[1] ?? '').matchAll(/`([A-Z0-9_*]+)`/g)].map((match) => match[1]!);
    if (variables.length === 0) continue;
    const cell = (cells[2] ?? '').replaceAll('`', '');
    // "200, 131072" for two variables: one default each, in order; otherwise the cell is shared.
    const parts = cell.split(/,\s*/);
    variables.forEach((variable, index) =>
      documented.set(variable, parts.length === variables.length ? parts[index]! : cell),
    );
  }
  return documented;
}

/** Every variable with a default value: the README must show exactly this value. */
const configurable: Record<string, string | number> = {
  PORT: defaults.server.port,
  // emulator mode / with a LINE channel
  HOST: `${defaults.server.emulatorHost} / ${defaults.server.channelHost}`,
  LOG_LEVEL: defaults.server.logLevel,
  KAIWA_SHUTDOWN_DEADLINE_MS: defaults.server.shutdownDeadlineMs,
  KAIWA_HTTP_REQUEST_TIMEOUT_MS: defaults.server.httpRequestTimeoutMs,
  KAIWA_STATELY_INSPECT: String(defaults.server.statelyInspect),
  KAIWA_INSPECT_SESSION_MS: defaults.server.inspectSessionMs,
  LINE_API_BASE_URL: defaults.line.apiBaseUrl,
  LINE_DATA_API_BASE_URL: defaults.line.dataApiBaseUrl,
  KAIWA_REPLY_TOKEN_TTL_MS: defaults.line.replyTokenTtlMs,
  KAIWA_LOADING_DELAY_MS: defaults.line.loadingDelayMs,
  KAIWA_LOADING_SECONDS: defaults.line.loadingSeconds,
  KAIWA_GROUP_ANSWER: defaults.line.groupAnswer,
  KAIWA_BOT_NAME: defaults.line.botName,
  KAIWA_MEDIA_MAX_BYTES: defaults.line.mediaMaxBytes,
  KAIWA_LINE_TIMEOUT_MS: defaults.line.requestTimeoutMs,
  KAIWA_WEBHOOK_ACCEPT_DEADLINE_MS: defaults.line.webhookAcceptDeadlineMs,
  KAIWA_MONTHLY_LIMIT_RETRY_MS: defaults.line.monthlyLimitRetryMs,
  KAIWA_MEDIA_TIMEOUT_MS: defaults.line.mediaTimeoutMs,
  KAIWA_MEDIA_CONCURRENCY: defaults.line.mediaConcurrency,
  KAIWA_MEDIA_CACHE_BYTES: defaults.line.mediaCacheBytes,
  KAIWA_MEDIA_CACHE_TTL_MS: defaults.line.mediaCacheTtlMs,
  KAIWA_FORGET_POLICY: defaults.line.forgetPolicy,
  KAIWA_STALE_EVENT_MS: defaults.line.staleEventMs,
  GEMINI_MODEL: defaults.gemini.model,
  GEMINI_CACHE: defaults.gemini.cache ? 'on' : 'off',
  GEMINI_CACHE_TTL_SECONDS: defaults.gemini.cacheTtlSeconds,
  GEMINI_MAX_INLINE_BYTES: defaults.gemini.maxInlineBytes,
  GEMINI_MAX_ATTEMPTS: defaults.gemini.maxAttempts,
  GEMINI_ATTEMPT_TIMEOUT_MS: defaults.gemini.attemptTimeoutMs,
  WEATHER_BASE_URL: defaults.tools.weatherBaseUrl,
  KAIWA_TOOL_TIMEOUT_MS: defaults.tools.timeoutMs,
  KAIWA_TIME_ZONE: defaults.tools.timeZone,
  STORE: defaults.store.kind,
  DATA_DIR: defaults.store.dataDir,
  DYNAMODB_TABLE: defaults.store.dynamodbTable,
  KAIWA_CONVERSATION_TTL_DAYS: defaults.store.conversationTtlDays,
  KAIWA_MAX_INBOX: defaults.store.maxInbox,
  KAIWA_MAX_MODEL_CALLS: defaults.conversation.maxModelCalls,
  KAIWA_QUEUE_POLICY: defaults.conversation.queuePolicy,
  KAIWA_MAX_QUEUED_TURNS: defaults.conversation.maxQueuedTurns,
  KAIWA_MAX_HISTORY_ENTRIES: defaults.conversation.maxHistoryEntries,
  KAIWA_MAX_HISTORY_BYTES: defaults.conversation.maxHistoryBytes,
  KAIWA_MAX_MODEL_CALLS_PER_MINUTE: defaults.conversation.maxModelCallsPerMinute,
  KAIWA_DAILY_TOKEN_BUDGET: defaults.conversation.dailyTokenBudget,
  KAIWA_TURN_DEADLINE_MS: defaults.conversation.turnDeadlineMs,
  KAIWA_IDLE_EVICTION_MS: defaults.host.idleEvictionMs,
  KAIWA_MAX_LIVE_SOURCES: defaults.host.maxLiveSources,
  KAIWA_MAX_WORKING_SOURCES: defaults.host.maxWorkingSources,
  KAIWA_LEASE_MS: defaults.host.leaseMs,
};

/** Variables whose default is a behaviour, not a value: the README's words, as they stand. */
const described: Record<string, string> = {
  LINE_CHANNEL_SECRET: 'unset → emulator',
  LINE_CHANNEL_ACCESS_TOKEN: 'unset → emulator',
  GEMINI_API_KEY: 'unset → offline model',
  GOOGLE_GENAI_USE_VERTEXAI: '—',
  GOOGLE_CLOUD_PROJECT: '—',
  GOOGLE_CLOUD_LOCATION: '—',
  GEMINI_BASE_URL: 'SDK default',
  GEMINI_THINKING_LEVEL: "the model's",
  GEMINI_TEMPERATURE: "the model's",
  GEMINI_TOP_P: "the model's",
  GEMINI_TOP_K: "the model's",
  GEMINI_MAX_OUTPUT_TOKENS: "the model's",
  GEMINI_THINKING_BUDGET: "the model's",
  GEMINI_CACHE_MIN_TOKENS: 'per model',
  DYNAMODB_ENDPOINT: 'AWS',
  AWS_REGION: '—',
  KAIWA_PERSONA_FILE: 'unset',
  INSPECT_TOKEN: 'unset',
  KAIWA_MEDIA_TYPES: 'JPEG, PNG, WebP',
  LINE_BOT_USER_ID: 'asked of LINE',
  'KAIWA_SSM_*': 'see docs/aws.md',
  'KAIWA_WORKER_*': 'see docs/aws.md',
  'KAIWA_WEBHOOK_*': 'see docs/aws.md',
};

describe('defaults', () => {
  const documented = readmeDefaults();

  it('finds the configuration table in the README', () => {
    expect(documented.size).toBeGreaterThan(40);
  });

  it.each(Object.entries(configurable))(
    'README shows %s with its default from defaults.ts',
    (variable, value) => {
      expect(documented.get(variable)).toBe(String(value));
    },
  );

  it('knows every variable in the README table, so none is left unchecked', () => {
    const known = new Set([...Object.keys(configurable), ...Object.keys(described)]);
    expect([...documented.keys()].filter((variable) => !known.has(variable))).toEqual([]);
    expect(
      Object.fromEntries(Object.keys(described).map((variable) => [variable, documented.get(variable)])),
    ).toEqual(described);
  });

  it('is a leaf module: it imports nothing, so every folder may take its defaults from it', () => {
    const source = readFileSync(new URL('../../src/defaults/defaults.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^\s*(import|export\s+[^;]*\sfrom)\s/m);
  });

  it('is what the configuration reads when nothing is set', () => {
    expect(loadConfig({})).toMatchObject({
      port: defaults.server.port,
      host: defaults.server.emulatorHost,
      logLevel: defaults.server.logLevel,
      shutdownDeadlineMs: defaults.server.shutdownDeadlineMs,
      inspect: {
        stately: defaults.server.statelyInspect,
        sessionLifetimeMs: defaults.server.inspectSessionMs,
      },
      line: { apiBaseUrl: defaults.line.apiBaseUrl, dataApiBaseUrl: defaults.line.dataApiBaseUrl },
      lineBehaviour: {
        replyTokenTtlMs: defaults.line.replyTokenTtlMs,
        loadingDelayMs: defaults.line.loadingDelayMs,
        loadingSeconds: defaults.line.loadingSeconds,
        groupAnswer: defaults.line.groupAnswer,
        botName: defaults.line.botName,
        mediaMaxBytes: defaults.line.mediaMaxBytes,
        forgetPolicy: defaults.line.forgetPolicy,
        staleEventMs: defaults.line.staleEventMs,
      },
      weatherBaseUrl: defaults.tools.weatherBaseUrl,
      toolTimeoutMs: defaults.tools.timeoutMs,
      timeZone: defaults.tools.timeZone,
      store: {
        kind: defaults.store.kind,
        dataDir: defaults.store.dataDir,
        dynamodb: {
          table: defaults.store.dynamodbTable,
          conversationTtlDays: defaults.store.conversationTtlDays,
        },
        conversationTtlDays: defaults.store.conversationTtlDays,
      },
      conversation: {
        maxModelCalls: defaults.conversation.maxModelCalls,
        queuePolicy: defaults.conversation.queuePolicy,
        maxQueuedTurns: defaults.conversation.maxQueuedTurns,
        maxHistoryEntries: defaults.conversation.maxHistoryEntries,
        maxHistoryBytes: defaults.conversation.maxHistoryBytes,
        maxModelCallsPerMinute: defaults.conversation.maxModelCallsPerMinute,
        dailyTokenBudget: defaults.conversation.dailyTokenBudget,
      },
      turnDeadlineMs: defaults.conversation.turnDeadlineMs,
      idleEvictionMs: defaults.host.idleEvictionMs,
      maxLiveSources: defaults.host.maxLiveSources,
      maxWorkingSources: defaults.host.maxWorkingSources,
      leaseMs: defaults.host.leaseMs,
    });
    expect(readWebhookConfig({ AWS_REGION: 'ap-northeast-1' })).toMatchObject({
      logLevel: defaults.server.logLevel,
      groupPolicy: { mode: defaults.line.groupAnswer, botName: defaults.line.botName },
      staleEventMs: defaults.line.staleEventMs,
    });
  });

  it("is the machine's, the history bounds' and the Gemini adapter's too", () => {
    expect(defaultConversationSettings).toEqual(defaults.conversation);
    expect(defaultHistoryLimits).toEqual({
      maxEntries: defaults.conversation.maxHistoryEntries,
      maxBytes: defaults.conversation.maxHistoryBytes,
    });
    expect(geminiOptionsFromEnv({ GEMINI_API_KEY: 'key' })?.model).toBe(defaults.gemini.model);
    expect(resolveRetryOptions(undefined)).toEqual({
      maxAttempts: defaults.gemini.maxAttempts,
      initialDelayMs: defaults.gemini.initialDelayMs,
      maxDelayMs: defaults.gemini.maxDelayMs,
      maxServerDelayMs: defaults.gemini.maxServerDelayMs,
      attemptTimeoutMs: defaults.gemini.attemptTimeoutMs,
    });
    expect(resolveCacheOptions('gemini-2.5-flash', undefined)).toMatchObject({
      ttlSeconds: defaults.gemini.cacheTtlSeconds,
    });
  });

  it('is frozen, so a caller given a default object cannot change it for everyone', () => {
    expect(Object.isFrozen(defaults.conversation)).toBe(true);
    expect(Object.isFrozen(defaults.line.deliveryBackoff)).toBe(true);
  });
});
