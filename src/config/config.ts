import { LOG_LEVELS, type LogLevel } from '../logging/index.js';
import { GeminiConfigError, geminiOptionsFromEnv, type GeminiModelOptions } from '../model/gemini/index.js';
import type { QueuePolicy } from '../machines/index.js';
import { isValidTimeZone } from '../tools/index.js';
import { ConfigError } from './config-error.js';
import { readDynamoDbConfig, type DynamoDbConfig } from './dynamodb-config.js';
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
  /** `KAIWA_PERSONA_FILE`: a text file with the persona; unset → the built-in persona. */
  readonly personaFile: string | undefined;
  /** `KAIWA_TIME_ZONE`: the IANA zone `get_current_time` uses when none is asked for. */
  readonly timeZone: string;
  readonly store: {
    readonly kind: StoreKind;
    readonly dataDir: string;
    readonly dynamodb: DynamoDbConfig;
  };
  readonly logLevel: LogLevel;
  readonly conversation: {
    readonly maxModelCalls: number;
    readonly queuePolicy: QueuePolicy;
    readonly maxQueuedTurns: number;
    readonly maxHistoryEntries: number;
    readonly maxHistoryBytes: number;
    readonly maxModelCallsPerMinute: number;
    readonly dailyTokenBudget: number;
  };
  /** How kaiwa behaves on LINE. */
  readonly lineBehaviour: {
    /** A reply token is used only while younger than this; later answers are pushed. */
    readonly replyTokenTtlMs: number;
    readonly loadingDelayMs: number;
    readonly loadingSeconds: number;
    /** In groups and rooms: answer every message (`all`; the model may skip) or only when addressed. */
    readonly groupAnswer: 'all' | 'mention';
    /** The name that addresses the bot in a group under `mention`. */
    readonly botName: string;
    /** Images larger than this are not given to the model. */
    readonly mediaMaxBytes: number;
    /** Unfollow and leave: delete the source's history, profiles and inbox, or keep them. */
    readonly forgetPolicy: 'delete' | 'keep';
  };
  /** A turn's model calls, retries included, end this long after it started. */
  readonly turnDeadlineMs: number;
  readonly toolTimeoutMs: number;
  readonly idleEvictionMs: number;
  /** At most this many sources in memory; the least recently used idle ones leave first. */
  readonly maxLiveSources: number;
  /** How long a process owns a source without renewing its heartbeat (three renewals a lease). */
  readonly leaseMs: number;
  readonly shutdownDeadlineMs: number;
  /** The live inspector (`INSPECT_TOKEN`) and the opt-in link to Stately's hosted one. */
  readonly inspect: { readonly token: string | undefined; readonly stately: boolean };
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
  const storeKind = readChoice(env, 'STORE', STORE_KINDS, defaults.store);
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
    personaFile: readString(env, 'KAIWA_PERSONA_FILE'),
    timeZone: readTimeZone(env, 'KAIWA_TIME_ZONE', 'Asia/Tokyo'),
    store: {
      kind: storeKind,
      dataDir: readString(env, 'DATA_DIR') ?? '.data',
      dynamodb: readDynamoDbConfig(env, storeKind),
    },
    logLevel: readChoice(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    conversation: {
      maxModelCalls: readInteger(env, 'KAIWA_MAX_MODEL_CALLS', 10, { min: 1, max: 100 }),
      queuePolicy: readChoice(env, 'KAIWA_QUEUE_POLICY', ['queue', 'merge'] as const, 'queue'),
      maxQueuedTurns: readInteger(env, 'KAIWA_MAX_QUEUED_TURNS', 20, { min: 1, max: 1000 }),
      maxHistoryEntries: readInteger(env, 'KAIWA_MAX_HISTORY_ENTRIES', 200, { min: 4, max: 10_000 }),
      maxHistoryBytes: readInteger(env, 'KAIWA_MAX_HISTORY_BYTES', 128 * 1024, {
        min: 4096,
        max: 256 * 1024,
      }),
      maxModelCallsPerMinute: readInteger(env, 'KAIWA_MAX_MODEL_CALLS_PER_MINUTE', 30, {
        min: 0,
        max: 10_000,
      }),
      dailyTokenBudget: readInteger(env, 'KAIWA_DAILY_TOKEN_BUDGET', 1_000_000, {
        min: 0,
        max: 1_000_000_000,
      }),
    },
    lineBehaviour: {
      replyTokenTtlMs: readInteger(env, 'KAIWA_REPLY_TOKEN_TTL_MS', 50_000, { min: 0, max: 60_000 }),
      loadingDelayMs: readInteger(env, 'KAIWA_LOADING_DELAY_MS', 1000, { min: 0, max: 60_000 }),
      loadingSeconds: readLoadingSeconds(env),
      groupAnswer: readChoice(env, 'KAIWA_GROUP_ANSWER', ['all', 'mention'] as const, 'all'),
      botName: readString(env, 'KAIWA_BOT_NAME') ?? 'kaiwa',
      mediaMaxBytes: readInteger(env, 'KAIWA_MEDIA_MAX_BYTES', 10 * 1024 * 1024, {
        min: 1024,
        max: 20 * 1024 * 1024,
      }),
      forgetPolicy: readChoice(env, 'KAIWA_FORGET_POLICY', ['delete', 'keep'] as const, 'delete'),
    },
    turnDeadlineMs: readInteger(env, 'KAIWA_TURN_DEADLINE_MS', 120_000, { min: 1000, max: 3_600_000 }),
    toolTimeoutMs: readInteger(env, 'KAIWA_TOOL_TIMEOUT_MS', 3000, { min: 1, max: 600_000 }),
    idleEvictionMs: readInteger(env, 'KAIWA_IDLE_EVICTION_MS', 300_000, { min: 1, max: 86_400_000 }),
    maxLiveSources: readInteger(env, 'KAIWA_MAX_LIVE_SOURCES', 1000, { min: 1, max: 1_000_000 }),
    leaseMs: readInteger(env, 'KAIWA_LEASE_MS', 30_000, { min: 1000, max: 600_000 }),
    shutdownDeadlineMs: readInteger(env, 'KAIWA_SHUTDOWN_DEADLINE_MS', 10_000, { min: 0, max: 600_000 }),
    inspect: {
      token: readString(env, 'INSPECT_TOKEN'),
      stately: readBoolean(env, 'KAIWA_STATELY_INSPECT', false),
    },
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

function readTimeZone(env: Env, name: string, fallback: string): string {
  const raw = readString(env, name) ?? fallback;
  if (!isValidTimeZone(raw)) {
    throw new ConfigError(name, `must be an IANA time zone such as "Asia/Tokyo" (got "${raw}")`);
  }
  return raw;
}

/** LINE accepts a loading animation of 5 to 60 seconds, in steps of 5. */
function readLoadingSeconds(env: Env): number {
  const seconds = readInteger(env, 'KAIWA_LOADING_SECONDS', 20, { min: 5, max: 60 });
  if (seconds % 5 !== 0)
    throw new ConfigError('KAIWA_LOADING_SECONDS', `must be a multiple of 5 (got ${seconds})`);
  return seconds;
}
