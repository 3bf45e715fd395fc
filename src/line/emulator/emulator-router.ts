import express, { type Request, type Router } from 'express';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import { LineEmulator } from './line-emulator.js';
import { postWebhook, textMessageEvent, type EmulatedTextMessage } from './webhook-sender.js';

const assetsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

/** Checks an outgoing LINE API request body; returns the problems LINE would report. */
export type LineRequestValidator = (method: string, path: string, body: unknown) => string[];

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
    if ((kind !== 'user' && kind !== 'group' && kind !== 'room') || typeof name !== 'string' || name.trim() === '') {
      response.status(400).json({ message: 'kind (user, group or room) and name are required' });
      return;
    }
    response.json({ id: LineEmulator.idFor(kind, name.trim()) });
  });

  router.get('/emulator/api/stream', (request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
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
    const answer = await postWebhook(options.webhookUrl(), emulator.channelSecret, emulator.botUserId, [event]);
    if (answer.status !== 200) emulator.recordViolation(chatId, `webhook answered ${answer.status}: ${answer.body}`);
    response.json({ entry, webhookStatus: answer.status });
  });

  // The Messaging API, as the bot's @line/bot-sdk client calls it.
  const lineApi = express.Router();
  lineApi.use(express.json({ limit: '1mb' }));
  lineApi.use((request, response, next) => {
    if (request.get('authorization') !== `Bearer ${emulator.channelAccessToken}`) {
      response.status(401).json({ message: 'Authentication failed. Confirm that the access token in the authorization header is valid.' });
      return;
    }
    next();
  });
  lineApi.post('/v2/bot/message/reply', (request, response) => {
    if (rejectInvalid(request, response, 'reply')) return;
    const answer = emulator.reply(request.body as Parameters<LineEmulator['reply']>[0]);
    response.status(answer.status).json(answer.body);
  });
  lineApi.post('/v2/bot/message/push', (request, response) => {
    if (rejectInvalid(request, response, (request.body as { to?: string }).to ?? 'unknown')) return;
    const answer = emulator.push(request.body as Parameters<LineEmulator['push']>[0], request.get('x-line-retry-key'));
    response.status(answer.status).json(answer.body);
  });
  router.use(lineApi);

  /** A request LINE would refuse gets LINE's 400, loudly in the log and on the page. */
  function rejectInvalid(request: Request, response: express.Response, chatId: string): boolean {
    const problems = options.validateRequest?.(request.method, request.path, request.body) ?? [];
    if (problems.length === 0) return false;
    logger.error('the bot sent a request that breaks LINE\'s schema', { path: request.path, problems });
    emulator.recordViolation(chatId, `LINE would refuse ${request.method} ${request.path}: ${problems.join('; ')}`);
    response.status(400).json({ message: 'The request body has 1 error(s)', details: problems.map((message) => ({ message })) });
    return true;
  }

  return router;
}

function parseEmulatedMessage(body: unknown): EmulatedTextMessage | string {
  const value = (body ?? {}) as { chat?: { kind?: unknown; name?: unknown }; userName?: unknown; text?: unknown };
  const kind = value.chat?.kind;
  if (kind !== 'user' && kind !== 'group' && kind !== 'room') return 'chat.kind must be user, group or room';
  if (typeof value.chat?.name !== 'string' || value.chat.name.trim() === '') return 'chat.name is required';
  if (typeof value.userName !== 'string' || value.userName.trim() === '') return 'userName is required';
  if (typeof value.text !== 'string' || value.text.length === 0 || value.text.length > 5000) {
    return 'text must be 1 to 5000 characters';
  }
  return { chat: { kind, name: value.chat.name.trim() }, userName: value.userName.trim(), text: value.text };
}
