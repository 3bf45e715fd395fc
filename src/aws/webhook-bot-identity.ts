import { readUrl, readString, type Env } from '../config/env-readers.js';
import { readBotUserId } from '../config/webhook-checks-config.js';
import { defaults } from '../defaults/index.js';
import { BotIdentity, botInfoLookup } from '../line/bot-identity.js';
import type { Logger } from '../logging/index.js';
import { SECRET_PARAMETERS } from './lambda-config.js';
import { withSecrets, type SecretReader } from './ssm-secrets.js';

/**
 * Where the webhook function learns the bot's user id, the `destination` it accepts
 * (docs/security.md, "Stale and misdirected events"): `LINE_BOT_USER_ID` when set; else
 * `getBotInfo`, once per container, when the function was given the access token; else nobody
 * — serverless.yml keeps the access token from the internet-facing function on purpose — and
 * the destination goes unchecked, said once per container.
 */
export function webhookBotUserId(
  env: Env,
  secrets: SecretReader,
  logger: Logger,
): (() => Promise<string | undefined>) | undefined {
  const configured = readBotUserId(env);
  if (configured !== undefined) return () => Promise.resolve(configured);
  const variable = 'LINE_CHANNEL_ACCESS_TOKEN';
  if (readString(env, variable) === undefined && readString(env, SECRET_PARAMETERS[variable]) === undefined) {
    logger.warn('webhook destination not checked: set LINE_BOT_USER_ID to the bot user id');
    return undefined;
  }
  const apiBaseUrl = readUrl(env, 'LINE_API_BASE_URL', defaults.line.apiBaseUrl);
  const identity = new BotIdentity({
    lookup: async () => {
      const channelAccessToken = (await withSecrets(env, secrets, [variable]))[variable]!;
      return botInfoLookup({ channelAccessToken, apiBaseUrl }, { logger })();
    },
    logger,
    waitMs: defaults.line.botInfoWaitMs,
  });
  identity.warm();
  return () => identity.userId();
}
