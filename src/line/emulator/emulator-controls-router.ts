import express, { type RequestHandler, type Router } from 'express';
import { MAX_WEBHOOK_BYTES } from '../webhook-handling.js';
import type { FaultKind, FaultRequest } from './fault-injector.js';
import type { LineEmulator } from './line-emulator.js';
import type { WebhookSender } from './webhook-sender.js';

const FAULT_KINDS: readonly FaultKind[] = ['too-many-requests', 'server-error', 'drop-connection'];
/** Longer than LINE's 2 s timeout is the point; longer than a minute helps nobody. */
const MAX_WEBHOOK_DELAY_MS = 60_000;

/**
 * The emulator's controls, for its page and for tests (docs/line.md, "The emulator"):
 * `/faults` queues 429s, 5xx and dropped connections for the bot's next LINE calls;
 * `/redeliver` sends an event again as LINE's redelivery; `/slow-webhook` makes the bot's
 * server answer its next webhooks late, past LINE's 2 s.
 */
export function emulatorControlsRouter(options: {
  readonly emulator: LineEmulator;
  readonly sender: WebhookSender;
}): Router {
  const { emulator, sender } = options;
  const router = express.Router();
  router.use(express.json({ limit: '16kb' }));

  router.get('/controls', (_request, response) => {
    response.json({ faults: emulator.faults.pending(), slowWebhook: emulator.pendingWebhookHold() ?? null });
  });

  router.get('/faults', (_request, response) => {
    response.json({ faults: emulator.faults.pending() });
  });
  router.post('/faults', (request, response) => {
    const parsed = parseFault(request.body);
    const fault = typeof parsed === 'string' ? parsed : emulator.faults.inject(parsed);
    if (typeof fault === 'string') {
      response.status(400).json({ message: fault });
      return;
    }
    response.status(201).json({ fault });
  });
  router.delete('/faults', (_request, response) => {
    emulator.faults.clear();
    response.status(204).end();
  });

  router.post('/redeliver', async (request, response) => {
    const { webhookEventId, chatId } = (request.body ?? {}) as { webhookEventId?: unknown; chatId?: unknown };
    const id =
      typeof webhookEventId === 'string'
        ? webhookEventId
        : typeof chatId === 'string'
          ? sender.lastEventOf(chatId)
          : undefined;
    if (id === undefined) {
      response
        .status(400)
        .json({ message: 'webhookEventId, or the chatId of a chat with events, is required' });
      return;
    }
    const sent = await sender.redeliver(id);
    if (!sent) {
      response.status(404).json({ message: `no event ${id} was sent lately` });
      return;
    }
    if (!sent.sent) {
      response.status(500).json({ message: 'invalid webhook', problems: sent.problems });
      return;
    }
    response.json({
      webhookEventId: id,
      webhookStatus: sent.status,
      ...(sent.failure && { webhookFailure: sent.failure }),
    });
  });

  router.post('/slow-webhook', (request, response) => {
    const { delayMs, times = 1 } = (request.body ?? {}) as { delayMs?: unknown; times?: unknown };
    if (
      typeof delayMs !== 'number' ||
      !Number.isInteger(delayMs) ||
      delayMs < 0 ||
      delayMs > MAX_WEBHOOK_DELAY_MS ||
      typeof times !== 'number' ||
      !Number.isInteger(times) ||
      times < 0 ||
      times > 1000
    ) {
      response
        .status(400)
        .json({ message: `delayMs (0 to ${MAX_WEBHOOK_DELAY_MS}) and times (0 to 1000) are required` });
      return;
    }
    emulator.holdWebhooks(delayMs, times);
    response.json({ slowWebhook: emulator.pendingWebhookHold() ?? null });
  });
  return router;
}

/**
 * Plays the bot's server answering slowly: put in front of the bot's `/webhook`. It reads the
 * whole body first, so the bot still gets the event after LINE gave up at 2 s — as a slow
 * server does — and LINE's redelivery then meets the bot's own de-duplication.
 */
export function slowWebhook(emulator: LineEmulator): RequestHandler {
  const readBody = express.raw({ type: () => true, limit: MAX_WEBHOOK_BYTES });
  return (request, response, next) => {
    const delayMs = emulator.takeWebhookDelay();
    if (delayMs === undefined) return next();
    readBody(request, response, (error?: unknown) => {
      if (error) return next(error);
      setTimeout(next, delayMs).unref();
    });
  };
}

function parseFault(body: unknown): FaultRequest | string {
  const value = (body ?? {}) as Record<string, unknown>;
  if (!FAULT_KINDS.includes(value.kind as FaultKind)) return `kind must be one of ${FAULT_KINDS.join(', ')}`;
  for (const [name, type] of [
    ['times', 'number'],
    ['endpoint', 'string'],
    ['status', 'number'],
    ['monthlyLimit', 'boolean'],
    ['delivered', 'boolean'],
  ] as const) {
    if (value[name] !== undefined && typeof value[name] !== type) return `${name} must be a ${type}`;
  }
  return value as unknown as FaultRequest;
}
