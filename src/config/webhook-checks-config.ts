import { defaults } from '../defaults/index.js';
import { ConfigError } from './config-error.js';
import { readInteger, readString, type Env } from './env-readers.js';

// What the webhook checks before it accepts events, read by the local runtime and by the Lambda
// webhook alike (which must stay free of the Gemini SDK, so this module imports no more).

/**
 * `KAIWA_STALE_EVENT_MS`: a minute at least (LINE's own delivery, clock skew); at most the replay
 * window, beyond which events are refused, not kept as context.
 */
export function readStaleEventMs(env: Env): number {
  return readInteger(env, 'KAIWA_STALE_EVENT_MS', defaults.line.staleEventMs, {
    min: 60_000,
    max: defaults.line.replayWindowMs,
  });
}

/**
 * `KAIWA_MAX_INBOX`: messages waiting per source before accept counts them into one overflow
 * item (docs/security.md, "A source's inbox"). At least a whole burst LINE may send in one
 * body; at most what a DynamoDB query of the inbox still reads in a few pages.
 */
export function readMaxInbox(env: Env): number {
  return readInteger(env, 'KAIWA_MAX_INBOX', defaults.store.maxInbox, { min: 10, max: 10_000 });
}

/** `LINE_BOT_USER_ID`: the bot's own user id, as LINE puts it in `destination`. */
export function readBotUserId(env: Env): string | undefined {
  const userId = readString(env, 'LINE_BOT_USER_ID');
  if (userId !== undefined && !/^U[0-9a-f]{32}$/.test(userId)) {
    throw new ConfigError('LINE_BOT_USER_ID', `must be a bot user id, U and 32 hex digits (got "${userId}")`);
  }
  return userId;
}
