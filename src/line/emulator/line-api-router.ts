import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../logging/index.js';
import type { LineEmulator } from './line-emulator.js';

/** Checks an outgoing LINE API request body; returns the problems LINE would report. */
export type LineRequestValidator = (method: string, path: string, body: unknown) => string[];

export interface LineApiRouterOptions {
  readonly emulator: LineEmulator;
  readonly logger: Logger;
  readonly validateRequest?: LineRequestValidator;
}

/**
 * The Messaging API endpoints the bot's `@line/bot-sdk` client calls, answered the way LINE
 * answers: 401 without the channel's access token, 400 for a body LINE's schema refuses or a
 * spent reply token, 409 for a repeated retry key.
 */
export function lineApiRouter(options: LineApiRouterOptions): Router {
  const { emulator, logger } = options;
  const router = express.Router();
  router.use('/v2/bot', express.json({ limit: '1mb' }), (request, response, next) => {
    if (request.get('authorization') !== `Bearer ${emulator.channelAccessToken}`) {
      response.status(401).json({
        message: 'Authentication failed. Confirm that the access token in the authorization header is valid.',
      });
      return;
    }
    next();
  });
  // The bot's own identity: the emulator's bot, whose id is every webhook's `destination`.
  router.get('/v2/bot/info', (_request, response) => {
    response.json({
      userId: emulator.botUserId,
      basicId: '@kaiwa',
      displayName: 'kaiwa',
      chatMode: 'bot',
      markAsReadMode: 'auto',
    });
  });
  router.post('/v2/bot/message/reply', (request, response) => {
    if (rejectInvalid(request, response, 'reply')) return;
    const answer = emulator.reply(request.body as Parameters<LineEmulator['reply']>[0]);
    response.status(answer.status).json(answer.body);
  });
  router.get('/v2/bot/profile/:userId', (request, response) => {
    send(response, emulator.profile(request.params.userId));
  });
  router.get('/v2/bot/group/:groupId/member/:userId', (request, response) => {
    send(response, emulator.profile(request.params.userId, request.params.groupId));
  });
  router.get('/v2/bot/room/:roomId/member/:userId', (request, response) => {
    send(response, emulator.profile(request.params.userId, request.params.roomId));
  });
  router.get('/v2/bot/group/:groupId/summary', (request, response) => {
    send(response, emulator.groupSummary(request.params.groupId));
  });
  router.get('/v2/bot/group/:groupId/members/count', (request, response) => {
    send(response, emulator.memberCount(request.params.groupId));
  });
  router.get('/v2/bot/room/:roomId/members/count', (request, response) => {
    send(response, emulator.memberCount(request.params.roomId));
  });
  router.post('/v2/bot/chat/loading/start', (request, response) => {
    const chatId = (request.body as { chatId?: string }).chatId ?? 'unknown';
    if (rejectInvalid(request, response, chatId)) return;
    send(response, emulator.startLoading(request.body as { chatId: string; loadingSeconds?: number }));
  });
  // The content API (LINE_DATA_API_BASE_URL): what users uploaded in the emulator.
  router.get('/v2/bot/message/:messageId/content', (request, response) => {
    const content = emulator.content(request.params.messageId);
    if (!content) {
      response.status(404).json({ message: 'Not found' });
      return;
    }
    response.status(200).type(content.mimeType).send(content.data);
  });
  router.post('/v2/bot/message/push', (request, response) => {
    if (rejectInvalid(request, response, (request.body as { to?: string }).to ?? 'unknown')) return;
    const answer = emulator.push(
      request.body as Parameters<LineEmulator['push']>[0],
      request.get('x-line-retry-key'),
    );
    response.status(answer.status).json(answer.body);
  });
  return router;

  function send(response: Response, answer: { status: number; body: Record<string, unknown> }) {
    response.status(answer.status).json(answer.body);
  }

  /** A request LINE would refuse gets LINE's 400, loudly in the log and on the page. */
  function rejectInvalid(request: Request, response: Response, chatId: string): boolean {
    const problems = options.validateRequest?.(request.method, request.path, request.body) ?? [];
    if (problems.length === 0) return false;
    logger.error("the bot sent a request that breaks LINE's schema", { path: request.path, problems });
    emulator.recordViolation(
      chatId,
      `LINE would refuse ${request.method} ${request.path}: ${problems.join('; ')}`,
    );
    response.status(400).json({
      message: 'The request body has 1 error(s)',
      details: problems.map((message) => ({ message })),
    });
    return true;
  }
}
