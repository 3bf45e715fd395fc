import type { KaiwaConfig } from '../config/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import { LineDelivery } from './line-delivery.js';
import { LineDirectory } from './line-directory.js';
import { LineTransport } from './line-transport.js';
import { LoadingAnimation } from './loading-animation.js';
import { LineMedia } from './media/index.js';
import { createMessagingApiClient } from './sdk-http-client.js';

/** Where the channel's APIs are and how to authenticate: a real channel, or the local emulator. */
export interface LineEndpoints {
  readonly channelAccessToken: string;
  readonly apiBaseUrl: string;
  readonly dataApiBaseUrl: string;
}

/**
 * Everything kaiwa does with LINE's Messaging API, built from one set of endpoints — and every
 * call through one {@link LineTransport} (timeouts, the turn's signal, request ids, no bodies in
 * the logs).
 */
export function createLineChannel(
  endpoints: LineEndpoints,
  config: KaiwaConfig,
  clock: Clock,
  logger: Logger,
) {
  const behaviour = config.lineBehaviour;
  const transport = new LineTransport({ logger, timeoutMs: behaviour.requestTimeoutMs });
  const client = createMessagingApiClient(transport, {
    channelAccessToken: endpoints.channelAccessToken,
    baseURL: endpoints.apiBaseUrl,
  });
  return {
    transport,
    /** The SDK's Messaging API client, routed through `transport`. */
    client,
    delivery: new LineDelivery({
      client,
      clock,
      logger,
      replyTokenTtlMs: behaviour.replyTokenTtlMs,
      monthlyLimitRetryMs: behaviour.monthlyLimitRetryMs,
    }),
    directory: new LineDirectory({ client, clock, logger }),
    media: new LineMedia({
      transport,
      dataApiBaseUrl: endpoints.dataApiBaseUrl,
      channelAccessToken: endpoints.channelAccessToken,
      logger,
      maxBytes: behaviour.mediaMaxBytes,
      timeoutMs: behaviour.mediaTimeoutMs,
      concurrency: behaviour.mediaConcurrency,
      cacheBytes: behaviour.mediaCacheBytes,
      cacheTtlMs: behaviour.mediaCacheTtlMs,
      mediaTypes: behaviour.mediaTypes,
      now: () => clock.now(),
    }),
    loading: new LoadingAnimation({
      client,
      logger,
      delayMs: behaviour.loadingDelayMs,
      seconds: behaviour.loadingSeconds,
    }),
  };
}
