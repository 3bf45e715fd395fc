import { createHmac } from 'node:crypto';

// The bot the benchmarks talk to, as their LINE sees it: its identity, its channel secret, and
// the signed webhooks the load processes send it.

/** The bot the benchmark's LINE speaks for: its `GET /v2/bot/info`, and every webhook's `destination`. */
export const BENCH_BOT_USER_ID = 'U' + 'b'.repeat(32);

/** The channel secret every benchmark bot is configured with, and every webhook is signed with. */
export const BENCH_CHANNEL_SECRET = 'bench-secret';

/** One user's message, as LINE would post it to the bench's bot: the body and its signature. */
export function signedMessageWebhook(event: {
  readonly userId: string;
  readonly webhookEventId: string;
  readonly replyToken: string;
  readonly message: Record<string, unknown>;
}): { body: string; signature: string } {
  const body = JSON.stringify({
    destination: BENCH_BOT_USER_ID,
    events: [
      {
        type: 'message',
        mode: 'active',
        timestamp: Date.now(),
        source: { type: 'user', userId: event.userId },
        webhookEventId: event.webhookEventId,
        deliveryContext: { isRedelivery: false },
        replyToken: event.replyToken,
        message: event.message,
      },
    ],
  });
  return { body, signature: createHmac('sha256', BENCH_CHANNEL_SECRET).update(body).digest('base64') };
}
