import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logging/index.js';
import { faultAnswer, type Fault } from './fault-injector.js';
import {
  invalidRequestBody,
  isRetryKey,
  loadingProblems,
  messageProblems,
  type ErrorDetail,
} from './line-api-rules.js';
import type { LineApiAnswer, LineEmulator } from './line-emulator.js';

/** Checks an outgoing LINE API request body; returns the problems LINE would report. */
export type LineRequestValidator = (method: string, path: string, body: unknown) => string[];

export interface LineApiRouterOptions {
  readonly emulator: LineEmulator;
  readonly logger: Logger;
  readonly validateRequest?: LineRequestValidator;
}

type Messages = { type: string; text?: string; quoteToken?: string }[];

/**
 * The Messaging API endpoints the bot's `@line/bot-sdk` client calls, answered the way LINE
 * answers (docs/line.md, "The emulator"): an `x-line-request-id` on every answer; 401 without the
 * channel's access token; 400 with `details` for a body LINE's schema or rules refuse, a spent or
 * expired reply token, a retry key that is not a UUID or is sent to the reply endpoint; 409 with
 * `x-line-accepted-request-id` for a retry key accepted in the last 24 hours; and the faults
 * queued in `emulator.faults`.
 */
export function lineApiRouter(options: LineApiRouterOptions): Router {
  const { emulator, logger } = options;
  const router = express.Router();
  router.use('/v2/bot', (request, response, next) => {
    // LINE's request ids are UUIDs.
    const requestId = randomUUID();
    response.locals.requestId = requestId;
    response.set('x-line-request-id', requestId);
    next();
  });
  router.use('/v2/bot', express.json({ limit: '1mb' }), (request, response, next) => {
    if (request.get('authorization') !== `Bearer ${emulator.channelAccessToken}`) {
      response.status(401).json({
        message: 'Authentication failed. Confirm that the access token in the authorization header is valid.',
      });
      return;
    }
    next();
  });
  router.use('/v2/bot', playFault);
  // The bot's own identity: the emulator's bot, whose id is every webhook's `destination`.
  router.get('/v2/bot/info', (_request, response) => {
    answer(response, {
      status: 200,
      body: {
        userId: emulator.botUserId,
        basicId: '@kaiwa',
        displayName: 'kaiwa',
        chatMode: 'bot',
        markAsReadMode: 'auto',
      },
    });
  });
  router.post('/v2/bot/message/reply', (request, response) => {
    const body = request.body as { replyToken: string; messages: Messages };
    // "Retry only with supported APIs": a retry key on any other endpoint is refused with 400.
    if (request.get('x-line-retry-key') !== undefined) {
      refuse(request, response, 'unknown', 'The retry key is not supported for this API', []);
      return;
    }
    if (
      rejectInvalid(
        request,
        response,
        emulator.chatOfReplyToken(body.replyToken) ?? 'unknown',
        messageProblems(body),
      )
    )
      return;
    answer(response, emulator.reply(body));
  });
  router.get('/v2/bot/profile/:userId', (request, response) => {
    answer(response, emulator.profile(request.params.userId));
  });
  router.get('/v2/bot/group/:groupId/member/:userId', (request, response) => {
    answer(response, emulator.profile(request.params.userId, request.params.groupId));
  });
  router.get('/v2/bot/room/:roomId/member/:userId', (request, response) => {
    answer(response, emulator.profile(request.params.userId, request.params.roomId));
  });
  router.get('/v2/bot/group/:groupId/summary', (request, response) => {
    answer(response, emulator.groupSummary(request.params.groupId));
  });
  router.get('/v2/bot/group/:groupId/members/count', (request, response) => {
    answer(response, emulator.memberCount(request.params.groupId));
  });
  router.get('/v2/bot/room/:roomId/members/count', (request, response) => {
    answer(response, emulator.memberCount(request.params.roomId));
  });
  router.post('/v2/bot/chat/loading/start', (request, response) => {
    const chatId = (request.body as { chatId?: string }).chatId ?? 'unknown';
    if (rejectInvalid(request, response, chatId, loadingProblems(request.body))) return;
    answer(response, emulator.startLoading(request.body as { chatId: string; loadingSeconds?: number }));
  });
  // The content API (LINE_DATA_API_BASE_URL): what users uploaded in the emulator.
  router.get('/v2/bot/message/:messageId/content', (request, response) => {
    const content = emulator.content(request.params.messageId);
    if (!content) {
      answer(response, { status: 404, body: { message: 'Not found' } });
      return;
    }
    response.status(200).type(content.mimeType).send(content.data);
  });
  router.post('/v2/bot/message/push', (request, response) => {
    const body = request.body as { to: string; messages: Messages };
    const chatId = body.to ?? 'unknown';
    const retryKey = request.get('x-line-retry-key');
    if (retryKey !== undefined && !isRetryKey(retryKey)) {
      refuse(request, response, chatId, "The value for the 'X-Line-Retry-Key' header is invalid", []);
      return;
    }
    if (rejectInvalid(request, response, chatId, messageProblems(body))) return;
    answer(response, emulator.push(body, retryKey, response.locals.requestId as string));
  });
  return router;

  /** A queued fault for this call: played now, or after the call took effect (`delivered`). */
  function playFault(request: Request, response: Response, next: NextFunction) {
    const path = new URL(request.originalUrl, 'http://emulator').pathname;
    const fault = emulator.faults.take(path);
    if (!fault) return next();
    logger.info('the emulator plays a LINE fault', {
      path,
      kind: fault.kind,
      status: fault.status,
      delivered: fault.delivered,
    });
    if (fault.delivered) {
      response.locals.fault = fault;
      return next();
    }
    strike(response, fault);
  }

  function strike(response: Response, fault: Fault) {
    const played = faultAnswer(fault);
    if (played.drop) response.socket?.destroy();
    else response.status(played.status).json(played.body);
  }

  /** Writes LINE's answer, unless a `delivered` fault replaces it now that the call took effect. */
  function answer(response: Response, { status, body, headers }: LineApiAnswer) {
    const fault = response.locals.fault as Fault | undefined;
    if (fault) return strike(response, fault);
    if (headers) response.set(headers);
    response.status(status).json(body);
  }

  /**
   * A request LINE would refuse gets LINE's 400 with `details`, loudly in the log and on the
   * page: the schema's problems, then LINE's rules the schema does not state.
   */
  function rejectInvalid(request: Request, response: Response, chatId: string, ruleProblems: ErrorDetail[]) {
    const schemaProblems = options.validateRequest?.(request.method, request.path, request.body) ?? [];
    const details: ErrorDetail[] = [...schemaProblems.map((message) => ({ message })), ...ruleProblems];
    if (details.length === 0) return false;
    const problems = details.map((detail) =>
      detail.property ? `${detail.property}: ${detail.message}` : detail.message,
    );
    logger.error("the bot sent a request that breaks LINE's schema", { path: request.path, problems });
    emulator.recordViolation(
      chatId,
      `LINE would refuse ${request.method} ${request.path}: ${problems.join('; ')}`,
    );
    response.status(400).json(invalidRequestBody(details));
    return true;
  }

  function refuse(
    request: Request,
    response: Response,
    chatId: string,
    message: string,
    details: ErrorDetail[],
  ) {
    logger.error('the bot sent a request LINE refuses', { path: request.path, reason: message });
    emulator.recordViolation(chatId, `LINE refuses ${request.method} ${request.path}: ${message}`);
    response.status(400).json(details.length > 0 ? { message, details } : { message });
  }
}
