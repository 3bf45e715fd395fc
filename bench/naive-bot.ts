import { messagingApi, middleware, type webhook } from '@line/bot-sdk';
import express from 'express';
import type { Server } from 'node:http';
import { defaults } from '../src/defaults/index.js';
import type { HistoryEntry } from '../src/domain/index.js';
import type { ModelPort } from '../src/model/index.js';
import type { NaiveHistoryStore } from './naive-history-store.js';

/** The parts of the naive store the bot uses: the benchmark counts the writes through this. */
export type HistoryStore = Pick<NaiveHistoryStore, 'load' | 'save'>;

/**
 * The naive contender, written the way most LINE bots are: express + @line/bot-sdk's
 * middleware, the webhook answered at once (as the bare baseline does), then per event one
 * model call over the stored history and one reply; the history is read whole and rewritten
 * whole on every turn, kept to the newest entries (kaiwa's window size, so both send the model
 * the same amount). A user message and the model's answer are stored as two plain entries.
 * No actors, no inbox, no redelivery check: what such a bot leaves out is what it saves.
 */
export function startNaiveBot(options: {
  channelSecret: string;
  channelAccessToken: string;
  lineUrl: string;
  model: ModelPort;
  store: HistoryStore;
}): Promise<Server> {
  const { model, store } = options;
  const client = new messagingApi.MessagingApiClient({
    channelAccessToken: options.channelAccessToken,
    baseURL: options.lineUrl,
  });

  async function handleEvent(event: webhook.Event): Promise<void> {
    if (event.type !== 'message' || event.message.type !== 'text' || !event.replyToken) return;
    const sourceId = sourceIdOf(event.source);
    if (!sourceId) return;
    const history = await store.load(sourceId);
    history.push({
      role: 'user',
      eventId: event.webhookEventId,
      text: event.message.text,
      timestamp: event.timestamp,
    });
    const answer = await model.generate({
      systemInstruction: '',
      history,
      tools: [],
      signal: AbortSignal.timeout(60_000),
    });
    const text = answer.calls.find((call) => call.name === 'reply')?.args.message;
    if (typeof text !== 'string') return;
    history.push({ role: 'model', turnId: event.webhookEventId, text, calls: [] });
    await store.save(sourceId, newest(history));
    await client.replyMessage({ replyToken: event.replyToken, messages: [{ type: 'text', text }] });
  }

  const app = express();
  app.post('/webhook', middleware({ channelSecret: options.channelSecret }), (request, response) => {
    response.json({});
    for (const event of (request.body as { events: webhook.Event[] }).events) {
      handleEvent(event).catch((error: unknown) => console.error('naive bot turn failed', error));
    }
  });
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function sourceIdOf(source: webhook.Source | undefined): string | undefined {
  switch (source?.type) {
    case 'user':
      return source.userId;
    case 'group':
      return source.groupId;
    case 'room':
      return source.roomId;
    default:
      return undefined;
  }
}

function newest(history: HistoryEntry[]): HistoryEntry[] {
  const max = defaults.conversation.maxHistoryEntries;
  return history.length > max ? history.slice(-max) : history;
}
