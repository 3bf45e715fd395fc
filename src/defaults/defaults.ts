// Every default of kaiwa in one place, each with the reason for its value. A leaf module: it
// imports nothing, so any folder (the conversation machine's included) takes its defaults from
// here without a cycle. The README's configuration table is checked against it by a test.

/** How long an event id stays claimed; the webhook's replay window is derived from it. */
const CLAIM_TTL_MS = 7 * 24 * 3_600_000;

const values = {
  server: {
    /** `PORT`: the usual port of a local Node.js server. */
    port: 3000,
    /**
     * `HOST` in emulator mode: loopback only — the emulator and the inspector have no login, so
     * nothing beyond this machine may reach them (docs/security.md, "Local emulator").
     */
    emulatorHost: '127.0.0.1',
    /** `HOST` with a LINE channel: every interface, as a server behind a proxy or in a container needs. */
    channelHost: '0.0.0.0',
    /** `LOG_LEVEL`: one line per webhook and turn; message text appears only at `debug`. */
    logLevel: 'info',
    /**
     * `KAIWA_SHUTDOWN_DEADLINE_MS`: long enough for most turns to finish, well inside the 30 s a
     * process manager (Kubernetes' default grace period) waits before it kills.
     */
    shutdownDeadlineMs: 10_000,
    /**
     * `KAIWA_HTTP_REQUEST_TIMEOUT_MS`: a request's headers and body arrive within this, or it is
     * answered 408 and its connection closed. LINE sends a webhook in one go; a client that
     * dribbles or stalls (slowloris) would otherwise hold a socket for Node.js's 5 minutes.
     */
    httpRequestTimeoutMs: 10_000,
    /** `KAIWA_STATELY_INSPECT`: off, because it streams conversations to a hosted service. */
    statelyInspect: false,
    /** `KAIWA_INSPECT_SESSION_MS`: a working day; the token is asked for again the next morning. */
    inspectSessionMs: 12 * 3_600_000,
  },

  store: {
    /** `STORE`: SQLite is built into Node.js 22: crash-safe transactions with nothing to install or run beside kaiwa. */
    kind: 'sqlite',
    /** `DATA_DIR`: a folder of the working directory, ignored by git. */
    dataDir: '.data',
    /** `DYNAMODB_TABLE`: the table serverless.yml creates. */
    dynamodbTable: 'kaiwa',
    /** `KAIWA_CONVERSATION_TTL_DAYS`: a month without a message ends a conversation; DynamoDB's TTL deletes it for free. */
    conversationTtlDays: 30,
    /** `AWS_REGION` next to `DYNAMODB_ENDPOINT`: the SDK needs a region and DynamoDB Local takes any. */
    localRegion: 'us-east-1',
    /**
     * `KAIWA_MAX_INBOX`: messages waiting per source. A person types a few while a turn runs (at
     * most two minutes); 100 is far beyond that and keeps a flood behind a stuck turn to about
     * 100 KB per source. Beyond it messages are counted into one inbox-full notice (docs/security.md).
     */
    maxInbox: 100,
    /** How long an event id stays claimed (the duplicate check): LINE redelivers within hours, not weeks. */
    claimTtlMs: CLAIM_TTL_MS,
    /**
     * How often `npm start` copies the SQLite WAL into the file, from a thread of its own: at 300
     * turns a second (about 14 MB of WAL) a second's worth stays small, and an idle check is free.
     */
    sqliteCheckpointIntervalMs: 1_000,
  },

  line: {
    /** `LINE_API_BASE_URL`: LINE's Messaging API. */
    apiBaseUrl: 'https://api.line.me',
    /** `LINE_DATA_API_BASE_URL`: LINE's content (media) API. */
    dataApiBaseUrl: 'https://api-data.line.me',
    /**
     * `KAIWA_REPLY_TOKEN_TTL_MS`: a reply token stops working about a minute after its event (the
     * emulator expires it at 60 s); 10 s are left for the request itself, later answers are pushed.
     */
    replyTokenTtlMs: 50_000,
    /** `KAIWA_LOADING_DELAY_MS`: an answer within a second shows no animation that would flicker. */
    loadingDelayMs: 1_000,
    /** `KAIWA_LOADING_SECONDS`: LINE allows 5–60 s in steps of 5; 20 s covers most turns with few renewals. */
    loadingSeconds: 20,
    /** `KAIWA_GROUP_ANSWER`: the model sees every group message and may `skip`; `mention` misses unnamed questions. */
    groupAnswer: 'all',
    /** `KAIWA_BOT_NAME`: the project's name, until a channel names its bot. */
    botName: 'kaiwa',
    /** `KAIWA_LINE_TIMEOUT_MS`: LINE answers in well under a second; 10 s ends a stalled call long before Node's 300 s. */
    requestTimeoutMs: 10_000,
    /** `KAIWA_MEDIA_MAX_BYTES`: Gemini takes 20 MB of inline data per request; 10 MiB leaves room for the rest. */
    mediaMaxBytes: 10 * 1024 * 1024,
    /** `KAIWA_MEDIA_TIMEOUT_MS`: the whole download, body included: 10 MiB at a slow 4 Mbit/s takes 20 s. */
    mediaTimeoutMs: 20_000,
    /** `KAIWA_MEDIA_CONCURRENCY`: downloads at once per process, so 40 chats' images cannot take 400 MB together. */
    mediaConcurrency: 4,
    /** `KAIWA_MEDIA_CACHE_BYTES`: a turn's images survive its few model calls; 32 MiB bounds the memory. */
    mediaCacheBytes: 32 * 1024 * 1024,
    /** `KAIWA_MEDIA_CACHE_TTL_MS`: a turn's model calls happen within a couple of minutes. */
    mediaCacheTtlMs: 120_000,
    /** `KAIWA_MEDIA_TYPES`: the image types Gemini's documentation lists (GIF, HEIC, HEIF on request). */
    mediaTypes: ['image/jpeg', 'image/png', 'image/webp'],
    /**
     * `KAIWA_STALE_EVENT_MS`: an answer hours late, by push, costs quota and surprises more than it
     * helps; three hours ride out an outage of kaiwa or LINE's own redelivery.
     */
    staleEventMs: 3 * 3_600_000,
    /**
     * Older events are refused: their ids' claims may have expired, so a replayed body would pass
     * as new. The claims' lifetime less a day for LINE's clock against ours (docs/security.md).
     */
    replayWindowMs: CLAIM_TTL_MS - 86_400_000,
    /** A webhook waits this long for the bot's user id at most, inside LINE's 2 s. */
    botInfoWaitMs: 800,
    /** `KAIWA_FORGET_POLICY`: someone who unfollows or removes the bot expects their data gone. */
    forgetPolicy: 'delete',
    /** Attempts of one reply or push on 429 and 5xx, the first included. */
    deliveryAttempts: 4,
    /** Full jitter up to 0.4 s, doubling to 5 s: the four attempts end within about 10 s. */
    deliveryBackoff: { baseMs: 400, maxMs: 5_000 },
    /**
     * The wait before each of the 3 retries of a push refused for the monthly message limit: LINE
     * lifts it when another delivery's reservation is released (its FAQ), so 3 × 200 s try for
     * 10 minutes before the refusal is counted (SPEC, "LINE details").
     */
    monthlyLimitRetryMs: 200_000,
    /**
     * `KAIWA_WEBHOOK_ACCEPT_DEADLINE_MS`: LINE counts a webhook as failed after 2 s; storage slower
     * than 1.5 s answers 500 so LINE redelivers, with room left for the network.
     */
    webhookAcceptDeadlineMs: 1_500,
  },

  gemini: {
    /**
     * `GEMINI_MODEL`: Gemini 3.6 Flash, generally available since July 2026 and listed as stable:
     * fast and inexpensive for chat, good at tool calls, and it takes all four thinking levels.
     * gemini-2.5-flash is deprecated (README, "Changing models").
     */
    model: 'gemini-3.6-flash',
    /** `GEMINI_MAX_ATTEMPTS`: three retries ride out a short overload within the turn's deadline. */
    maxAttempts: 4,
    /** The first retry waits 0.25–0.5 s (equal jitter), doubling: the three retries take under 4 s. */
    initialDelayMs: 500,
    /** Cap of Gemini's backoff for larger `GEMINI_MAX_ATTEMPTS`. */
    maxDelayMs: 8_000,
    /** A server asking for a longer wait has a spent quota (per day): waiting within a turn cannot help. */
    maxServerDelayMs: 60_000,
    /** `GEMINI_ATTEMPT_TIMEOUT_MS`: a long thinking answer takes tens of seconds; past a minute it is stuck. */
    attemptTimeoutMs: 60_000,
    /**
     * `GEMINI_CACHE`: off. Implicit caching (Gemini 2.5 and later) already discounts the repeated
     * prefix with no storage bill and no request waiting; kaiwa's built-in prefix is below 3.6
     * Flash's 4,096-token explicit minimum anyway (docs/model.md compares the two per million turns).
     */
    cache: false,
    /** `GEMINI_CACHE_TTL_SECONDS`: refreshed while messages come, gone within an hour after (storage is billed per hour). */
    cacheTtlSeconds: 3_600,
    /** The cache's TTL is extended once less than this is left, so no request meets an expired cache. */
    cacheRefreshBeforeSeconds: 600,
    /** After a cache error, requests go uncached this long before a new cache is tried: ten minutes, not every minute. */
    cacheRetryAfterMs: 600_000,
    /** A cache count, create, refresh or delete runs beside the requests, never in front of one. */
    cacheOperationTimeoutMs: 10_000,
    /**
     * `GEMINI_MAX_INLINE_BYTES`: Gemini takes 20 MB per request, inline data included; 15 MB of
     * base64 (about 11 MB of media) leaves 5 MB for the history, the prompt and the declarations.
     */
    maxInlineBytes: 15_000_000,
  },

  /** The conversation machine's settings (`ConversationSettings`). */
  conversation: {
    /** `KAIWA_MAX_MODEL_CALLS`: a turn with a few tool rounds needs 2–4 calls; 10 stops a loop. */
    maxModelCalls: 10,
    /** `KAIWA_QUEUE_POLICY`: one answer per message, in order, as in a conversation. */
    queuePolicy: 'queue',
    /** `KAIWA_MAX_QUEUED_TURNS`: beyond 20 waiting turns a burst is answered as one (SPEC's default). */
    maxQueuedTurns: 20,
    /** Sent when the model fails for good, so the user is never left in silence. */
    apology: 'Sorry, I cannot answer right now. Please try again in a moment.',
    /** `KAIWA_MAX_HISTORY_ENTRIES`: about 60 exchanges of context for the model. */
    maxHistoryEntries: 200,
    /**
     * `KAIWA_MAX_HISTORY_BYTES`: 128 KiB keeps the cost of a save bounded and leaves the rest of the
     * snapshot over 200 KB of room under the store's 350 KB item ceiling.
     */
    maxHistoryBytes: 128 * 1024,
    /** `KAIWA_MAX_MODEL_CALLS_PER_MINUTE`: a person sends a few messages a minute; 30 calls stop a flood. */
    maxModelCallsPerMinute: 30,
    /** `KAIWA_DAILY_TOKEN_BUDGET`: about a hundred long turns a day, a cap on what one chat can cost. */
    dailyTokenBudget: 1_000_000,
    /** Sent instead of an answer when a limit is reached. */
    limitNotice: 'I am getting a lot of messages right now. Please wait a little before the next one.',
    /** Sent for messages a full inbox did not keep (`KAIWA_MAX_INBOX`): the user knows to send them again. */
    inboxFullNotice:
      'So many messages arrived while I was busy that I could not keep some of them. Please send again what you still need.',
    /** `KAIWA_TURN_DEADLINE_MS`: two full Gemini attempts; after it the user gets the apology. */
    turnDeadlineMs: 120_000,
  },

  /** The actor host: one source machine per source in memory. */
  host: {
    /** `KAIWA_IDLE_EVICTION_MS`: five quiet minutes end most chats for now; restoring costs one load. */
    idleEvictionMs: 300_000,
    /** `KAIWA_MAX_LIVE_SOURCES`: an idle source costs a few KB of head; a thousand stay well under 100 MB. */
    maxLiveSources: 1000,
    /**
     * `KAIWA_MAX_WORKING_SOURCES`: sources running turns at once; more wait their turn. A restart
     * with 5,000 chats holding messages started them all at once: a webhook waited 7.4 s (LINE
     * waits 2 s) and 753 of 5,012 pushes went out a second time under their retry key. With 100
     * it waited 0.5 s and the backlog cleared sooner. At 2 s a model call, 100 still answer 50
     * turns a second.
     */
    maxWorkingSources: 100,
    /**
     * `KAIWA_LEASE_MS`: renewed three times a lease, so a loaded machine misses two heartbeats
     * before it loses a source; a crashed owner's sources are taken over within 30 s.
     */
    leaseMs: 30_000,
    /** A conflicting save clears within tens of ms; a failing store is tried at most every 30 s. */
    backoff: { baseMs: 50, maxMs: 30_000 },
    /**
     * On Lambda, a message whose turn was started this many times and never finished (the
     * invocation died or timed out) is set aside with a notice: one bad message never blocks a chat.
     */
    maxInboxAttempts: 5,
    /**
     * A turn whose conversation failed this many times in a row (a bug, a model port's bad
     * answer: it fails the same way again) is set aside with a notice, not run forever.
     */
    maxTurnFailures: 3,
    quarantineNotice:
      'Sorry, I could not handle that message, so I have set it aside. Please send it again in other words.',
  },

  tools: {
    /** `KAIWA_TOOL_TIMEOUT_MS`: SPEC's 3 s for the weather tool; slower keeps the user waiting. */
    timeoutMs: 3_000,
    /**
     * A tool result's UTF-8 bytes (its JSON for the model and its text for the user), unless the
     * tool says otherwise: about 8,000 tokens for the model. A step's results together are bounded
     * apart (`MAX_STEP_RESULT_BYTES`), so the step's history entry fits one DynamoDB item.
     */
    maxResultBytes: 32 * 1024,
    /**
     * How long a tool's background work may run before its turn hears it timed out: long enough
     * for a report or a render, short enough that a promise that never settles is reported.
     */
    backgroundTimeoutMs: 60 * 60_000,
    /**
     * Waits before handing a finished piece's outcome to the inbox again, when the store refused
     * it (a full disk, throttling): 7 s in all, then it stays in the ledger for the next start.
     */
    backgroundRedeliverDelaysMs: [1_000, 2_000, 4_000],
    /** `WEATHER_BASE_URL`: wttr.in answers JSON without an API key. */
    weatherBaseUrl: 'https://wttr.in',
    /** `KAIWA_TIME_ZONE`: most LINE users are in Japan. */
    timeZone: 'Asia/Tokyo',
  },
} as const;

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value))
    if (typeof child === 'object' && child !== null) deepFreeze(child);
  return Object.freeze(value);
}

/**
 * kaiwa's defaults, frozen: a caller given one of these objects cannot change it for everyone.
 * @example
 * readInteger(env, 'KAIWA_TOOL_TIMEOUT_MS', defaults.tools.timeoutMs, { min: 1, max: 600_000 })
 */
export const defaults = deepFreeze(values);
