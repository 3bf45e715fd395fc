import { isIP } from 'node:net';
import { isValidTimeZone } from '../domain/index.js';
import { LOG_LEVELS, type LogLevel } from '../logging/index.js';
import { GeminiConfigError, geminiOptionsFromEnv, type GeminiModelOptions } from '../model/gemini/index.js';
import type { QueuePolicy } from '../machines/index.js';
import { ConfigError } from './config-error.js';
import { defaults } from '../defaults/index.js';
import { readDynamoDbConfig, type DynamoDbConfig } from './dynamodb-config.js';
import { readBotUserId, readMaxInbox, readStaleEventMs } from './webhook-checks-config.js';
import {
  readBoolean,
  readChoice,
  readInteger,
  readIntegers,
  readString,
  readUrl,
  type Env,
  type IntegerSettings,
} from './env-readers.js';

export const STORE_KINDS = ['memory', 'sqlite', 'dynamodb'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** A real LINE channel, or the built-in emulator when no credentials are set. */
export type LineChannelConfig =
  | { readonly mode: 'channel'; readonly channelSecret: string; readonly channelAccessToken: string }
  | { readonly mode: 'emulator' };

export interface KaiwaConfig {
  readonly port: number;
  /** `HOST`: the address the local server listens on (loopback in emulator mode by default). */
  readonly host: string;
  readonly line: LineChannelConfig & { readonly apiBaseUrl: string; readonly dataApiBaseUrl: string };
  /** Gemini when a key or Vertex AI is configured; the offline model otherwise. */
  readonly model: 'gemini' | 'offline';
  /** Gemini's settings (`GEMINI_*`, Vertex AI's own variables) when `model` is gemini. */
  readonly gemini: GeminiModelOptions | undefined;
  readonly weatherBaseUrl: string;
  /** `KAIWA_PERSONA_FILE`: a text file with the persona; unset → the built-in persona. */
  readonly personaFile: string | undefined;
  /**
   * `KAIWA_TIME_ZONE`: the IANA zone `get_current_time` uses, and a repeating reminder keeps its
   * clock in, when none is asked for.
   */
  readonly timeZone: string;
  readonly store: {
    readonly kind: StoreKind;
    readonly dataDir: string;
    readonly dynamodb: DynamoDbConfig;
    /**
     * `KAIWA_CONVERSATION_TTL_DAYS` (read with the DynamoDB settings, which the Lambda functions
     * read alone): an idle conversation expires after this on either durable store; 0 = never.
     */
    readonly conversationTtlDays: number;
    /** `KAIWA_MAX_INBOX`: messages waiting per source before accept counts them instead. */
    readonly maxInbox: number;
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
    /** Every Messaging API call ends after this long (ms) without a complete answer. */
    readonly requestTimeoutMs: number;
    /** Storing a webhook's events must be over within this (ms), or the answer is 500 (LINE redelivers). */
    readonly webhookAcceptDeadlineMs: number;
    /** The wait (ms) before each of the 3 retries of a push refused for the monthly limit. */
    readonly monthlyLimitRetryMs: number;
    /** Images larger than this are not given to the model. */
    readonly mediaMaxBytes: number;
    /** One content download, body included, ends after this long (ms). */
    readonly mediaTimeoutMs: number;
    /** Content downloads at once; the others wait (bounds the memory images take). */
    readonly mediaConcurrency: number;
    /** Bytes of loaded images kept for the next model call of a turn. */
    readonly mediaCacheBytes: number;
    /** How long (ms) a loaded image is kept. */
    readonly mediaCacheTtlMs: number;
    /** Media types given to the model (`image/jpeg`, …); anything else is left out. */
    readonly mediaTypes: readonly string[];
    /** Unfollow and leave: delete the source's history, profiles and inbox, or keep them. */
    readonly forgetPolicy: 'delete' | 'keep';
    /** Messages older than this when the webhook accepts them are kept as context, never answered. */
    readonly staleEventMs: number;
    /** `LINE_BOT_USER_ID`: the webhook's expected `destination`; unset → asked of LINE (`getBotInfo`). */
    readonly botUserId: string | undefined;
  };
  /** A turn's model calls, retries included, end this long after it started. */
  readonly turnDeadlineMs: number;
  readonly toolTimeoutMs: number;
  readonly idleEvictionMs: number;
  /** At most this many sources in memory; the least recently used idle ones leave first. */
  readonly maxLiveSources: number;
  readonly maxWorkingSources: number;
  /** How long a process owns a source without renewing its heartbeat (three renewals a lease). */
  readonly leaseMs: number;
  readonly shutdownDeadlineMs: number;
  /** A request's headers and body must arrive within this, or it is answered 408 (slow clients). */
  readonly httpRequestTimeoutMs: number;
  /** The live inspector (`INSPECT_TOKEN`, its sessions) and the opt-in link to Stately's hosted one. */
  readonly inspect: {
    readonly token: string | undefined;
    readonly sessionLifetimeMs: number;
    readonly stately: boolean;
  };
}

/** The runtime's bounded whole-number settings. */
const RUNTIME_INTEGERS = {
  port: { variable: 'PORT', fallback: defaults.server.port, min: 0, max: 65535 },
  turnDeadlineMs: {
    variable: 'KAIWA_TURN_DEADLINE_MS',
    fallback: defaults.conversation.turnDeadlineMs,
    min: 1000,
    max: 3_600_000,
  },
  toolTimeoutMs: {
    variable: 'KAIWA_TOOL_TIMEOUT_MS',
    fallback: defaults.tools.timeoutMs,
    min: 1,
    max: 600_000,
  },
  idleEvictionMs: {
    variable: 'KAIWA_IDLE_EVICTION_MS',
    fallback: defaults.host.idleEvictionMs,
    min: 1,
    max: 86_400_000,
  },
  maxLiveSources: {
    variable: 'KAIWA_MAX_LIVE_SOURCES',
    fallback: defaults.host.maxLiveSources,
    min: 1,
    max: 1_000_000,
  },
  maxWorkingSources: {
    variable: 'KAIWA_MAX_WORKING_SOURCES',
    fallback: defaults.host.maxWorkingSources,
    min: 1,
    max: 1_000_000,
  },
  leaseMs: { variable: 'KAIWA_LEASE_MS', fallback: defaults.host.leaseMs, min: 1000, max: 600_000 },
  shutdownDeadlineMs: {
    variable: 'KAIWA_SHUTDOWN_DEADLINE_MS',
    fallback: defaults.server.shutdownDeadlineMs,
    min: 0,
    max: 600_000,
  },
  httpRequestTimeoutMs: {
    variable: 'KAIWA_HTTP_REQUEST_TIMEOUT_MS',
    fallback: defaults.server.httpRequestTimeoutMs,
    min: 100,
    max: 300_000,
  },
} as const satisfies IntegerSettings;

/** The conversation's bounded whole-number settings. */
const CONVERSATION_INTEGERS = {
  maxModelCalls: {
    variable: 'KAIWA_MAX_MODEL_CALLS',
    fallback: defaults.conversation.maxModelCalls,
    min: 1,
    max: 100,
  },
  maxQueuedTurns: {
    variable: 'KAIWA_MAX_QUEUED_TURNS',
    fallback: defaults.conversation.maxQueuedTurns,
    min: 1,
    max: 1000,
  },
  maxHistoryEntries: {
    variable: 'KAIWA_MAX_HISTORY_ENTRIES',
    fallback: defaults.conversation.maxHistoryEntries,
    min: 4,
    max: 10_000,
  },
  maxHistoryBytes: {
    variable: 'KAIWA_MAX_HISTORY_BYTES',
    fallback: defaults.conversation.maxHistoryBytes,
    min: 4096,
    max: 256 * 1024,
  },
  maxModelCallsPerMinute: {
    variable: 'KAIWA_MAX_MODEL_CALLS_PER_MINUTE',
    fallback: defaults.conversation.maxModelCallsPerMinute,
    min: 0,
    max: 10_000,
  },
  dailyTokenBudget: {
    variable: 'KAIWA_DAILY_TOKEN_BUDGET',
    fallback: defaults.conversation.dailyTokenBudget,
    min: 0,
    max: 1_000_000_000,
  },
} as const satisfies IntegerSettings;

/** How kaiwa talks to LINE: its bounded whole-number settings. */
const LINE_BEHAVIOUR_INTEGERS = {
  replyTokenTtlMs: {
    variable: 'KAIWA_REPLY_TOKEN_TTL_MS',
    fallback: defaults.line.replyTokenTtlMs,
    min: 0,
    max: 60_000,
  },
  loadingDelayMs: {
    variable: 'KAIWA_LOADING_DELAY_MS',
    fallback: defaults.line.loadingDelayMs,
    min: 0,
    max: 60_000,
  },
  requestTimeoutMs: {
    variable: 'KAIWA_LINE_TIMEOUT_MS',
    fallback: defaults.line.requestTimeoutMs,
    min: 100,
    max: 120_000,
  },
  webhookAcceptDeadlineMs: {
    variable: 'KAIWA_WEBHOOK_ACCEPT_DEADLINE_MS',
    fallback: defaults.line.webhookAcceptDeadlineMs,
    min: 100,
    max: 1_900,
  },
  monthlyLimitRetryMs: {
    variable: 'KAIWA_MONTHLY_LIMIT_RETRY_MS',
    fallback: defaults.line.monthlyLimitRetryMs,
    min: 0,
    max: 3_600_000,
  },
  mediaMaxBytes: {
    variable: 'KAIWA_MEDIA_MAX_BYTES',
    fallback: defaults.line.mediaMaxBytes,
    min: 1024,
    max: 20 * 1024 * 1024,
  },
  mediaTimeoutMs: {
    variable: 'KAIWA_MEDIA_TIMEOUT_MS',
    fallback: defaults.line.mediaTimeoutMs,
    min: 100,
    max: 300_000,
  },
  mediaConcurrency: {
    variable: 'KAIWA_MEDIA_CONCURRENCY',
    fallback: defaults.line.mediaConcurrency,
    min: 1,
    max: 64,
  },
  mediaCacheBytes: {
    variable: 'KAIWA_MEDIA_CACHE_BYTES',
    fallback: defaults.line.mediaCacheBytes,
    min: 0,
    max: 1024 * 1024 * 1024,
  },
  mediaCacheTtlMs: {
    variable: 'KAIWA_MEDIA_CACHE_TTL_MS',
    fallback: defaults.line.mediaCacheTtlMs,
    min: 1000,
    max: 3_600_000,
  },
} as const satisfies IntegerSettings;

/** The inspector's bounded whole-number settings. */
const INSPECT_INTEGERS = {
  sessionLifetimeMs: {
    variable: 'KAIWA_INSPECT_SESSION_MS',
    fallback: defaults.server.inspectSessionMs,
    min: 60_000,
    max: 30 * 86_400_000,
  },
} as const satisfies IntegerSettings;

/**
 * Reads SPEC's fixed variables and kaiwa's own `KAIWA_*` settings. Throws a `ConfigError`
 * that names the variable; `npm start` prints it as one line and exits 1.
 */
export function loadConfig(
  env: Env,
  fallback: { store: StoreKind } = { store: defaults.store.kind },
): KaiwaConfig {
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
  if (env.STORE === 'file') {
    throw new ConfigError(
      'STORE',
      'is "file", which is retired: use sqlite (the files under DATA_DIR are imported on its first start)',
    );
  }
  const storeKind = readChoice(env, 'STORE', STORE_KINDS, fallback.store);
  const dynamodb = readDynamoDbConfig(env, storeKind);
  const config: KaiwaConfig = {
    ...readIntegers(env, RUNTIME_INTEGERS),
    host: readHost(
      env,
      line.mode === 'emulator' ? defaults.server.emulatorHost : defaults.server.channelHost,
    ),
    line: {
      ...line,
      apiBaseUrl: readUrl(env, 'LINE_API_BASE_URL', defaults.line.apiBaseUrl),
      dataApiBaseUrl: readUrl(env, 'LINE_DATA_API_BASE_URL', defaults.line.dataApiBaseUrl),
    },
    model: gemini ? 'gemini' : 'offline',
    gemini,
    weatherBaseUrl: readUrl(env, 'WEATHER_BASE_URL', defaults.tools.weatherBaseUrl),
    personaFile: readString(env, 'KAIWA_PERSONA_FILE'),
    timeZone: readTimeZone(env, 'KAIWA_TIME_ZONE', defaults.tools.timeZone),
    store: {
      kind: storeKind,
      dataDir: readString(env, 'DATA_DIR') ?? defaults.store.dataDir,
      dynamodb,
      conversationTtlDays: dynamodb.conversationTtlDays,
      maxInbox: readMaxInbox(env),
    },
    logLevel: readChoice(env, 'LOG_LEVEL', LOG_LEVELS, defaults.server.logLevel),
    conversation: {
      ...readIntegers(env, CONVERSATION_INTEGERS),
      queuePolicy: readChoice(
        env,
        'KAIWA_QUEUE_POLICY',
        ['queue', 'merge'] as const,
        defaults.conversation.queuePolicy,
      ),
    },
    lineBehaviour: {
      ...readIntegers(env, LINE_BEHAVIOUR_INTEGERS),
      loadingSeconds: readLoadingSeconds(env),
      groupAnswer: readChoice(
        env,
        'KAIWA_GROUP_ANSWER',
        ['all', 'mention'] as const,
        defaults.line.groupAnswer,
      ),
      botName: readString(env, 'KAIWA_BOT_NAME') ?? defaults.line.botName,
      mediaTypes: readMediaTypes(env),
      forgetPolicy: readChoice(
        env,
        'KAIWA_FORGET_POLICY',
        ['delete', 'keep'] as const,
        defaults.line.forgetPolicy,
      ),
      staleEventMs: readStaleEventMs(env),
      botUserId: readBotUserId(env),
    },
    inspect: {
      ...readIntegers(env, INSPECT_INTEGERS),
      token: readInspectToken(env),
      stately: readBoolean(env, 'KAIWA_STATELY_INSPECT', defaults.server.statelyInspect),
    },
  };
  checkLeaseCoversSideEffects(config);
  return config;
}

/**
 * A side effect starts only while the lease stays ours for its whole timeout (docs/runtime.md,
 * "Ownership"): a lease no longer than that timeout could never be shown to cover one.
 */
function checkLeaseCoversSideEffects(config: KaiwaConfig): void {
  const timeoutMs = sideEffectTimeoutMs(config);
  if (config.leaseMs <= timeoutMs) {
    throw new ConfigError(
      'KAIWA_LEASE_MS',
      `must be longer than the longest side effect's timeout, KAIWA_LINE_TIMEOUT_MS or KAIWA_TOOL_TIMEOUT_MS (got ${config.leaseMs} ≤ ${timeoutMs})`,
    );
  }
}

/** The longest a side effect's own call may take: a LINE call or a tool (ms). */
export function sideEffectTimeoutMs(config: Pick<KaiwaConfig, 'lineBehaviour' | 'toolTimeoutMs'>): number {
  return Math.max(config.lineBehaviour.requestTimeoutMs, config.toolTimeoutMs);
}

/** An IP address (`0.0.0.0`, `::`, `127.0.0.1`, `::1`, an interface's) or `localhost`. */
function readHost(env: Env, fallback: string): string {
  const host = readString(env, 'HOST') ?? fallback;
  if (host !== 'localhost' && isIP(host) === 0) {
    throw new ConfigError(
      'HOST',
      `must be an IP address such as 127.0.0.1 or 0.0.0.0, or localhost (got "${host}")`,
    );
  }
  return host;
}

/** Long enough that it cannot be guessed or tried out (docs/security.md, "Inspector"). */
export const MIN_INSPECT_TOKEN_LENGTH = 32;

function readInspectToken(env: Env): string | undefined {
  const token = readString(env, 'INSPECT_TOKEN');
  if (token !== undefined && token.length < MIN_INSPECT_TOKEN_LENGTH) {
    throw new ConfigError(
      'INSPECT_TOKEN',
      `must be at least ${MIN_INSPECT_TOKEN_LENGTH} characters (got ${token.length}); make one with: openssl rand -hex 32`,
    );
  }
  return token;
}

function readGemini(env: Env): GeminiModelOptions | undefined {
  readBoolean(env, 'GOOGLE_GENAI_USE_VERTEXAI', false); // the same message as every other flag
  try {
    return geminiOptionsFromEnv(env);
  } catch (error) {
    if (GeminiConfigError.isInstance(error)) throw new ConfigError(error.variable, error.reason);
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

/** Image types `KAIWA_MEDIA_TYPES` may list: those whose bytes kaiwa can recognise. */
export const MEDIA_TYPE_CHOICES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/heic',
  'image/heif',
] as const;

/**
 * The image types given to the model by default: those Gemini documents for image input that
 * LINE serves. GIF is not among Gemini's documented types, so it is opt-in (docs/security.md).
 */
export const DEFAULT_MEDIA_TYPES: readonly string[] = defaults.line.mediaTypes;

/** `KAIWA_MEDIA_TYPES`: a comma-separated list from {@link MEDIA_TYPE_CHOICES}. */
function readMediaTypes(env: Env): readonly string[] {
  const raw = readString(env, 'KAIWA_MEDIA_TYPES');
  if (raw === undefined) return DEFAULT_MEDIA_TYPES;
  const types = raw
    .split(',')
    .map((type) => type.trim().toLowerCase())
    .filter(Boolean);
  const choices: readonly string[] = MEDIA_TYPE_CHOICES;
  if (types.length === 0 || types.some((type) => !choices.includes(type))) {
    throw new ConfigError('KAIWA_MEDIA_TYPES', `must list types from ${choices.join(', ')} (got "${raw}")`);
  }
  return types;
}

/** LINE accepts a loading animation of 5 to 60 seconds, in steps of 5. */
function readLoadingSeconds(env: Env): number {
  const seconds = readInteger(env, 'KAIWA_LOADING_SECONDS', defaults.line.loadingSeconds, {
    min: 5,
    max: 60,
  });
  if (seconds % 5 !== 0)
    throw new ConfigError('KAIWA_LOADING_SECONDS', `must be a multiple of 5 (got ${seconds})`);
  return seconds;
}
