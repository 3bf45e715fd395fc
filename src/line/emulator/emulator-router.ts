import express, { type Router } from 'express';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import { lineApiRouter, type LineRequestValidator } from './line-api-router.js';
import { LineEmulator } from './line-emulator.js';
import { postWebhook, textMessageEvent, type EmulatedTextMessage } from './webhook-sender.js';

const assetsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

export interface EmulatorRouterOptions {
  readonly emulator: LineEmulator;
  /** Where the bot's webhook listens (this server). */
  readonly webhookUrl: () => string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly validateRequest?: LineRequestValidator;
}

/**
 * The emulator's two faces: the chat page and its API at `/` and `/emulator/*`, and the
 * Messaging API endpoints the bot calls (`/v2/bot/message/reply`, `/push`).
 */
export function emulatorRouter(options: EmulatorRouterOptions): Router {
  const { emulator, logger } = options;
  const router = express.Router();

  router.get('/', (_request, response) => response.sendFile(path.join(assetsDir, 'index.html')));
  router.use('/emulator/assets', express.static(assetsDir, { index: false }));

  router.get('/emulator/api/transcript', (_request, response) => {
    response.json({ entries: emulator.entries() });
  });

  router.get('/emulator/api/chat-id', (request, response) => {
    const { kind, name } = request.query;
    if (
      (kind !== 'user' && kind !== 'group' && kind !== 'room') ||
      typeof name !== 'string' ||
      name.trim() === ''
    ) {
      response.status(400).json({ message: 'kind (user, group or room) and name are required' });
      return;
    }
    response.json({ id: LineEmulator.idFor(kind, name.trim()) });
  });

  router.get('/emulator/api/stream', (request, response) => {
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    response.write(': connected\n\n');
    const unsubscribe = emulator.subscribe((entry) => response.write(`data: ${JSON.stringify(entry)}\n\n`));
    request.on('close', unsubscribe);
  });

  router.post('/emulator/api/messages', express.json({ limit: '64kb' }), async (request, response) => {
    const message = parseEmulatedMessage(request.body);
    if (typeof message === 'string') {
      response.status(400).json({ message });
      return;
    }
    const { event, chatId, messageId, quoteToken } = textMessageEvent(emulator, message, options.clock.now());
    const entry = emulator.recordUserMessage(chatId, message.userName, message.text, quoteToken, messageId);
    const answer = await postWebhook(options.webhookUrl(), emulator.channelSecret, emulator.botUserId, [
      event,
    ]);
    if (answer.status !== 200)
      emulator.recordViolation(chatId, `webhook answered ${answer.status}: ${answer.body}`);
    response.json({ entry, webhookStatus: answer.status });
  });

  router.use(
    lineApiRouter({
      emulator,
      logger,
      ...(options.validateRequest && { validateRequest: options.validateRequest }),
    }),
  );
  return router;
}

function parseEmulatedMessage(body: unknown): EmulatedTextMessage | string {
  const value = (body ?? {}) as {
    chat?: { kind?: unknown; name?: unknown };
    userName?: unknown;
    text?: unknown;
  };
  const kind = value.chat?.kind;
  if (kind !== 'user' && kind !== 'group' && kind !== 'room') return 'chat.kind must be user, group or room';
  if (typeof value.chat?.name !== 'string' || value.chat.name.trim() === '') return 'chat.name is required';
  if (typeof value.userName !== 'string' || value.userName.trim() === '') return 'userName is required';
  if (typeof value.text !== 'string' || value.text.length === 0 || value.text.length > 5000) {
    return 'text must be 1 to 5000 characters';
  }
  return { chat: { kind, name: value.chat.name.trim() }, userName: value.userName.trim(), text: value.text };
}
