import { LOG_LEVELS, type LogLevel } from '../logging/index.js';
import { GeminiConfigError, geminiOptionsFromEnv, type GeminiModelOptions } from '../model/gemini/index.js';
import type { QueuePolicy } from '../machines/index.js';
import { ConfigError } from './config-error.js';
import { readBoolean, readChoice, readInteger, readString, readUrl, type Env } from './env-readers.js';

export const STORE_KINDS = ['memory', 'file', 'dynamodb'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** A real LINE channel, or the built-in emulator when no credentials are set. */
export type LineChannelConfig =
  | { readonly mode: 'channel'; readonly channelSecret: string; readonly channelAccessToken: string }
  | { readonly mode: 'emulator' };

export interface KaiwaConfig {
  readonly port: number;
  readonly line: LineChannelConfig & { readonly apiBaseUrl: string; readonly dataApiBaseUrl: string };
  /** Gemini when a key or Vertex AI is configured; the offline model otherwise. */
  readonly model: 'gemini' | 'offline';
  /** Gemini's settings (`GEMINI_*`, Vertex AI's own variables) when `model` is gemini. */
  readonly gemini: GeminiModelOptions | undefined;
  readonly weatherBaseUrl: string;
  readonly store: { readonly kind: StoreKind; readonly dataDir: string };
  readonly logLevel: LogLevel;
  readonly conversation: {
    readonly maxModelCalls: number;
    readonly queuePolicy: QueuePolicy;
    readonly maxQueuedTurns: number;
  };
  readonly toolTimeoutMs: number;
  readonly idleEvictionMs: number;
  readonly shutdownDeadlineMs: number;
}

/**
 * Reads SPEC's fixed variables and kaiwa's own `KAIWA_*` settings. Throws a `ConfigError`
 * that names the variable; `npm start` prints it as one line and exits 1.
 */
export function loadConfig(env: Env, defaults: { store: StoreKind } = { store: 'file' }): KaiwaConfig {
  const channelSecret = readString(env, 'LINE_CHANNEL_SECRET');
  const channelAccessToken = readString(env, 'LINE_CHANNEL_ACCESS_TOKEN');
  if (!!channelSecret !== !!channelAccessToken) {
    const missing = channelSecret ? 'LINE_CHANNEL_ACCESS_TOKEN' : 'LINE_CHANNEL_SECRET';
    throw new ConfigError(missing, 'must be set too: set both LINE credentials, or neither for the emulator');
  }
  const line: LineChannelConfig =
    channelSecret && channelAccessToken
      ? { mode: 'channel', channelSecret, channelAccessToken }
      : { mode: 'emulator' };

  const gemini = readGemini(env);
  return {
    port: readInteger(env, 'PORT', 3000, { min: 0, max: 65535 }),
    line: {
      ...line,
      apiBaseUrl: readUrl(env, 'LINE_API_BASE_URL', 'https://api.line.me'),
      dataApiBaseUrl: readUrl(env, 'LINE_DATA_API_BASE_URL', 'https://api-data.line.me'),
    },
    model: gemini ? 'gemini' : 'offline',
    gemini,
    weatherBaseUrl: readUrl(env, 'WEATHER_BASE_URL', 'https://wttr.in'),
    store: {
      kind: readChoice(env, 'STORE', STORE_KINDS, defaults.store),
      dataDir: readString(env, 'DATA_DIR') ?? '.data',
    },
    logLevel: readChoice(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    conversation: {
      maxModelCalls: readInteger(env, 'KAIWA_MAX_MODEL_CALLS', 10, { min: 1, max: 100 }),
      queuePolicy: readChoice(env, 'KAIWA_QUEUE_POLICY', ['queue', 'merge'] as const, 'queue'),
      maxQueuedTurns: readInteger(env, 'KAIWA_MAX_QUEUED_TURNS', 20, { min: 1, max: 1000 }),
    },
    toolTimeoutMs: readInteger(env, 'KAIWA_TOOL_TIMEOUT_MS', 3000, { min: 1, max: 600_000 }),
    idleEvictionMs: readInteger(env, 'KAIWA_IDLE_EVICTION_MS', 300_000, { min: 1, max: 86_400_000 }),
    shutdownDeadlineMs: readInteger(env, 'KAIWA_SHUTDOWN_DEADLINE_MS', 10_000, { min: 0, max: 600_000 }),
  };
}

function readGemini(env: Env): GeminiModelOptions | undefined {
  readBoolean(env, 'GOOGLE_GENAI_USE_VERTEXAI', false); // the same message as every other flag
  try {
    return geminiOptionsFromEnv(env);
  } catch (error) {
    if (error instanceof GeminiConfigError) throw new ConfigError(error.variable, error.reason);
    throw error;
  }
}
