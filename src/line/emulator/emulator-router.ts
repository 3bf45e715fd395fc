import express, { type Router } from 'express';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../../domain/index.js';
import type { Logger } from '../../logging/index.js';
import { emulatorControlsRouter } from './emulator-controls-router.js';
import { lineApiRouter, type LineRequestValidator } from './line-api-router.js';
import { LineEmulator } from './line-emulator.js';
import { buildEvent, type EmulatedAction, type EmulatedRequest } from './webhook-event-builder.js';
import { WebhookSender, type WebhookValidator } from './webhook-sender.js';
import { startEventStream } from '../event-stream.js';

const assetsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

export type { WebhookValidator } from './webhook-sender.js';

export interface EmulatorRouterOptions {
  readonly emulator: LineEmulator;
  /** Where the bot's webhook listens (this server). */
  readonly webhookUrl: () => string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly validateRequest?: LineRequestValidator;
  readonly validateWebhook?: WebhookValidator;
  /** How long LINE waits for the webhook's answer: LINE's 2 s unless a test needs another. */
  readonly webhookTimeoutMs?: number;
}

/**
 * The emulator's two faces: the chat page and its API at `/` and `/emulator/*`, and the
 * Messaging API endpoints the bot calls (see `lineApiRouter`).
 */
export function emulatorRouter(options: EmulatorRouterOptions): Router {
  const { emulator, logger } = options;
  const router = express.Router();
  const sender = new WebhookSender({
    emulator,
    webhookUrl: options.webhookUrl,
    logger,
    ...(options.validateWebhook && { validateWebhook: options.validateWebhook }),
    ...(options.webhookTimeoutMs !== undefined && { timeoutMs: options.webhookTimeoutMs }),
  });

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

  // Uploaded images for the page (the content API itself needs the bot's access token).
  router.get('/emulator/api/content/:messageId', (request, response) => {
    const content = emulator.content(request.params.messageId);
    if (!content) {
      response.status(404).json({ message: 'Not found' });
      return;
    }
    response.type(content.mimeType).send(content.data);
  });

  router.get('/emulator/api/stream', (request, response) => {
    const send = startEventStream(response);
    const unsubscribe = emulator.subscribe((entry) => send(`data: ${JSON.stringify(entry)}\n\n`));
    request.on('close', unsubscribe);
  });

  // Images arrive as base64 in JSON: the limit covers LINE's 10 MB image size.
  router.post('/emulator/api/messages', express.json({ limit: '15mb' }), async (request, response) => {
    const parsed = parseEmulatedRequest(request.body);
    if (typeof parsed === 'string') {
      response.status(400).json({ message: parsed });
      return;
    }
    const built = buildEvent(emulator, parsed, options.clock.now());
    emulator.setChatMode(built.chatId, parsed.mode ?? 'active');
    let entry: ReturnType<LineEmulator['recordUserMessage']> | undefined;
    const sent = await sender.send(built.event, built.chatId, () => {
      if (built.transcript) {
        entry = emulator.recordUserMessage(built.chatId, parsed.userName, built.transcript);
      }
    });
    if (!sent.sent) {
      response.status(500).json({ message: 'invalid webhook', problems: sent.problems });
      return;
    }
    response.json({
      entry,
      chatId: built.chatId,
      webhookEventId: sent.webhookEventId,
      webhookStatus: sent.status,
      ...(sent.failure && { webhookFailure: sent.failure }),
    });
  });

  router.use('/emulator/api', emulatorControlsRouter({ emulator, sender }));

  router.use(
    lineApiRouter({
      emulator,
      logger,
      ...(options.validateRequest && { validateRequest: options.validateRequest }),
    }),
  );
  return router;
}

function parseEmulatedRequest(body: unknown): EmulatedRequest | string {
  const value = (body ?? {}) as {
    chat?: { kind?: unknown; name?: unknown };
    userName?: unknown;
    text?: unknown;
    action?: Record<string, unknown>;
    mode?: unknown;
  };
  const kind = value.chat?.kind;
  if (kind !== 'user' && kind !== 'group' && kind !== 'room') return 'chat.kind must be user, group or room';
  if (typeof value.chat?.name !== 'string' || value.chat.name.trim() === '') return 'chat.name is required';
  if (typeof value.userName !== 'string' || value.userName.trim() === '') return 'userName is required';
  const action = parseAction(value.action ?? { type: 'text', text: value.text }, kind);
  if (typeof action === 'string') return action;
  if (value.mode !== undefined && value.mode !== 'active' && value.mode !== 'standby')
    return 'mode must be active or standby';
  return {
    chat: { kind, name: value.chat.name.trim() },
    userName: value.userName.trim(),
    action,
    ...(value.mode !== undefined && { mode: value.mode }),
  };
}

function parseAction(
  action: Record<string, unknown>,
  kind: 'user' | 'group' | 'room',
): EmulatedAction | string {
  switch (action.type) {
    case 'text':
      if (typeof action.text !== 'string' || action.text.length === 0 || action.text.length > 5000) {
        return 'text must be 1 to 5000 characters';
      }
      if (action.quotedMessageId !== undefined && typeof action.quotedMessageId !== 'string') {
        return 'quotedMessageId must be the id of a message in the chat';
      }
      return {
        type: 'text',
        text: action.text,
        ...(action.quotedMessageId !== undefined && { quotedMessageId: action.quotedMessageId }),
      };
    case 'sticker':
      if (typeof action.packageId !== 'string' || typeof action.stickerId !== 'string') {
        return 'a sticker needs packageId and stickerId';
      }
      return {
        type: 'sticker',
        packageId: action.packageId,
        stickerId: action.stickerId,
        ...(Array.isArray(action.keywords) && { keywords: action.keywords.map(String) }),
      };
    case 'image': {
      if (
        typeof action.data !== 'string' ||
        typeof action.mimeType !== 'string' ||
        !action.mimeType.startsWith('image/')
      ) {
        return 'an image needs mimeType image/* and base64 data';
      }
      return { type: 'image', mimeType: action.mimeType, data: Buffer.from(action.data, 'base64') };
    }
    case 'location':
      if (typeof action.latitude !== 'number' || typeof action.longitude !== 'number') {
        return 'a location needs latitude and longitude';
      }
      return {
        type: 'location',
        title: typeof action.title === 'string' ? action.title : 'Location',
        address: typeof action.address === 'string' ? action.address : '',
        latitude: action.latitude,
        longitude: action.longitude,
      };
    case 'follow':
    case 'unfollow':
      return kind === 'user' ? { type: action.type } : `${action.type} happens in 1:1 chats only`;
    case 'join':
    case 'leave':
    case 'memberJoined':
    case 'memberLeft':
      return kind === 'user' ? `${action.type} happens in groups and rooms only` : { type: action.type };
    case 'unsend':
      return typeof action.messageId === 'string'
        ? { type: 'unsend', messageId: action.messageId }
        : 'unsend needs messageId';
    default:
      return `unknown action type ${JSON.stringify(action.type)}`;
  }
}
