import { messagingApi } from '@line/bot-sdk';
import type { KaiwaConfig } from '../config/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import { LineDelivery } from './line-delivery.js';
import { LineDirectory } from './line-directory.js';
import { LineMedia } from './line-media.js';
import { LoadingAnimation } from './loading-animation.js';

/** Where the channel's APIs are and how to authenticate: a real channel, or the local emulator. */
export interface LineEndpoints {
  readonly channelAccessToken: string;
  readonly apiBaseUrl: string;
  readonly dataApiBaseUrl: string;
}

/** Everything kaiwa does with LINE's Messaging API, built from one set of endpoints. */
export function createLineChannel(
  endpoints: LineEndpoints,
  config: KaiwaConfig,
  clock: Clock,
  logger: Logger,
) {
  const client = new messagingApi.MessagingApiClient({
    channelAccessToken: endpoints.channelAccessToken,
    baseURL: endpoints.apiBaseUrl,
  });
  const blobClient = new messagingApi.MessagingApiBlobClient({
    channelAccessToken: endpoints.channelAccessToken,
    baseURL: endpoints.dataApiBaseUrl,
  });
  const behaviour = config.lineBehaviour;
  return {
    delivery: new LineDelivery({ client, clock, logger, replyTokenTtlMs: behaviour.replyTokenTtlMs }),
    directory: new LineDirectory({ client, clock, logger }),
    media: new LineMedia({ client: blobClient, logger, maxBytes: behaviour.mediaMaxBytes }),
    loading: new LoadingAnimation({
      client,
      logger,
      delayMs: behaviour.loadingDelayMs,
      seconds: behaviour.loadingSeconds,
    }),
  };
}
