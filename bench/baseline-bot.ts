import { messagingApi, middleware, type webhook } from '@line/bot-sdk';
import express from 'express';
import type { Server } from 'node:http';
import { EchoReplyModel } from './bench-model.js';

/**
 * The bare baseline: express + @line/bot-sdk's middleware + the same zero-latency model,
 * no actors, no persistence, no history beyond the one message.
 */
export function startBaselineBot(options: {
  channelSecret: string;
  channelAccessToken: string;
  lineUrl: string;
}): Promise<Server> {
  const client = new messagingApi.MessagingApiClient({
    channelAccessToken: options.channelAccessToken,
    baseURL: options.lineUrl,
  });
  const model = new EchoReplyModel();
  const app = express();
  app.post('/webhook', middleware({ channelSecret: options.channelSecret }), (request, response) => {
    response.json({});
    for (const event of (request.body as { events: webhook.Event[] }).events) {
      if (event.type !== 'message' || event.message.type !== 'text') continue;
      const { replyToken } = event;
      if (!replyToken) continue;
      const text = event.message.text;
      void model
        .generate({
          systemInstruction: '',
          history: [{ role: 'user', eventId: event.webhookEventId, text, timestamp: event.timestamp }],
          tools: [],
          signal: new AbortController().signal,
        })
        .then((answer) => {
          const reply = answer.calls.find((call) => call.name === 'reply');
          if (!reply) return;
          return client.replyMessage({
            replyToken,
            messages: [{ type: 'text', text: reply.args.message as string }],
          });
        })
        .catch((error: unknown) => console.error('baseline reply failed', error));
    }
  });
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}
