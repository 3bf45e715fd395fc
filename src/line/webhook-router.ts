import express, { type ErrorRequestHandler, type Router } from 'express';
import { defaults } from '../defaults/index.js';
import type { InboxItem } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { AcceptResult } from '../persistence/index.js';
import type { GroupAnswerPolicy } from './webhook-events.js';
import { WebhookEventValidator } from './webhook-event-validator.js';
import {
  handleWebhook,
  MAX_WEBHOOK_BYTES,
  BODY_TOO_LARGE,
  type WebhookHandlingOptions,
} from './webhook-handling.js';

export interface WebhookRouterOptions {
  /** The channel secret; read per request so the emulator can set it after start. */
  readonly channelSecret: () => string;
  /** Durably accepts the messages (claim + inbox); the turns run after the answer. */
  readonly accept: (items: InboxItem[]) => Promise<AcceptResult>;
  readonly groupPolicy: GroupAnswerPolicy;
  readonly logger: Logger;
  /** LINE's webhook schema; defaults to the process's shared validator. */
  readonly validator?: WebhookEventValidator;
  /** See {@link WebhookHandlingOptions}: the bot's user id, the stale age and its clock. */
  readonly botUserId?: WebhookHandlingOptions['botUserId'];
  readonly staleEventMs?: number;
  readonly now?: () => number;
  /** See {@link WebhookHandlingOptions}: storage slower than this answers 500 (ms). */
  readonly acceptDeadlineMs?: number;
}

/**
 * `POST /webhook`: 401 without a valid `x-line-signature` (HMAC-SHA256 of the raw body,
 * compared in constant time), 413 over 1 MiB, 400 for malformed JSON, 500 when the events
 * could not be stored or not within `acceptDeadlineMs` (LINE redelivers), otherwise 200 once
 * they are durable. Events that break
 * LINE's webhook schema are skipped (logged), never stored.
 */
export function webhookRouter(options: WebhookRouterOptions): Router {
  const validator = options.validator ?? WebhookEventValidator.shared();
  const router = express.Router();
  router.post(
    '/webhook',
    (request, response, next) => {
      // Refuse unsigned requests before reading a byte of the body.
      if (!request.get('x-line-signature')) {
        response.status(401).json({ message: 'missing x-line-signature' });
        return;
      }
      next();
    },
    // Raw bytes: the signature covers the body exactly as sent (express.json() would break it).
    // In bytes, the same number as the Lambda path: express refuses only beyond it, as handleWebhook does.
    express.raw({ type: () => true, limit: MAX_WEBHOOK_BYTES }),
    async (request, response) => {
      const result = await handleWebhook(
        {
          rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          signature: request.get('x-line-signature'),
        },
        {
          channelSecret: options.channelSecret(),
          accept: options.accept,
          groupPolicy: options.groupPolicy,
          logger: options.logger,
          validator,
          ...(options.botUserId && { botUserId: options.botUserId }),
          ...(options.staleEventMs !== undefined && { staleEventMs: options.staleEventMs }),
          ...(options.now && { now: options.now }),
          acceptDeadlineMs: options.acceptDeadlineMs ?? defaults.line.webhookAcceptDeadlineMs,
        },
      );
      response.status(result.status).json(result.body);
    },
  );
  router.use(webhookErrors(options.logger));
  return router;
}

function webhookErrors(logger: Logger): ErrorRequestHandler {
  return (error: { type?: string; status?: number }, _request, response, _next) => {
    if (error.type === 'entity.too.large') {
      response.status(BODY_TOO_LARGE.status).json(BODY_TOO_LARGE.body);
      return;
    }
    logger.error('webhook failed', { error });
    response
      .status(error.status && error.status < 500 ? error.status : 500)
      .json({ message: 'webhook failed' });
  };
}
