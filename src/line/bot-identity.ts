import type { Logger } from '../logging/index.js';
import { withDeadline } from '../timing/index.js';
import { LineTransport } from './line-transport.js';
import { createMessagingApiClient } from './sdk-http-client.js';

export interface BotIdentityOptions {
  /** Asks LINE for the bot's own user id (`getBotInfo`). */
  readonly lookup: () => Promise<string>;
  readonly logger: Logger;
  /** A webhook waits this long for the first lookup at most (LINE gives it 2 s in all). */
  readonly waitMs: number;
}

/**
 * The bot's own user id, what a webhook's `destination` must be (docs/security.md, "Stale and
 * misdirected events"). Looked up once per process and kept; a lookup that fails or is slow
 * leaves this webhook unchecked (logged) and the next one asks again, so a LINE API outage
 * never costs an accepted message.
 * @example
 * const identity = new BotIdentity({ lookup: botInfoLookup(endpoints, { logger }), logger, waitMs: 1000 });
 * identity.warm();
 * await identity.userId(); // 'U4af4980629…', or undefined while unknown
 */
export class BotIdentity {
  private known: string | undefined;
  private pending: Promise<string | undefined> | undefined;

  constructor(private readonly options: BotIdentityOptions) {}

  /** Starts the lookup now, so the first webhook does not wait for it. */
  warm(): void {
    void this.userId();
  }

  /** The bot's user id, or undefined when LINE has not told it (yet). */
  async userId(): Promise<string | undefined> {
    if (this.known !== undefined) return this.known;
    this.pending ??= this.options.lookup().then(
      (userId) => {
        this.known = userId;
        this.pending = undefined;
        return userId;
      },
      (error: unknown) => {
        this.pending = undefined;
        this.options.logger.warn('bot user id lookup failed: webhook destination not checked', { error });
        return undefined;
      },
    );
    try {
      return await withDeadline(this.pending, { deadline: Date.now() + this.options.waitMs });
    } catch {
      // Still looking: this webhook goes unchecked, the answer is kept for the next one.
      this.options.logger.warn('bot user id lookup is slow: webhook destination not checked', {
        waitMs: this.options.waitMs,
      });
      return undefined;
    }
  }
}

/**
 * `getBotInfo` through the SDK's Messaging API client, routed through a {@link LineTransport} like
 * every LINE call (a timeout, the request id logged); an answer without a bot user id is an error.
 */
export function botInfoLookup(
  endpoints: { readonly channelAccessToken: string; readonly apiBaseUrl: string },
  transport: { readonly logger: Logger; readonly timeoutMs?: number },
): () => Promise<string> {
  const client = createMessagingApiClient(new LineTransport(transport), {
    channelAccessToken: endpoints.channelAccessToken,
    baseURL: endpoints.apiBaseUrl,
  });
  return async () => {
    const { userId } = await client.getBotInfo();
    if (typeof userId !== 'string' || !/^U[0-9a-f]{32}$/.test(userId)) {
      throw new Error('getBotInfo answered without a bot user id');
    }
    return userId;
  };
}
