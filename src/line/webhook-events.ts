import type { InboundMessage, Source } from '../domain/index.js';
import type { Logger } from '../logging/index.js';

/** The parts of a LINE webhook event kaiwa reads; everything else is ignored. */
interface LineEvent {
  type?: unknown;
  webhookEventId?: unknown;
  timestamp?: unknown;
  replyToken?: unknown;
  source?: { type?: unknown; userId?: unknown; groupId?: unknown; roomId?: unknown };
  message?: { type?: unknown; id?: unknown; text?: unknown; quoteToken?: unknown };
}

/** The conversation a webhook event belongs to: the user, group or room. */
export function sourceOf(event: LineEvent): Source | undefined {
  const source = event.source;
  if (source?.type === 'user' && typeof source.userId === 'string')
    return { kind: 'user', id: source.userId };
  if (source?.type === 'group' && typeof source.groupId === 'string')
    return { kind: 'group', id: source.groupId };
  if (source?.type === 'room' && typeof source.roomId === 'string')
    return { kind: 'room', id: source.roomId };
  return undefined;
}

/**
 * Turns a webhook's events into inbox messages. Unknown event or message types are skipped
 * with a debug log, never an error: LINE adds types over time.
 */
export function toInboundMessages(events: readonly unknown[], logger: Logger): InboundMessage[] {
  const messages: InboundMessage[] = [];
  for (const raw of events) {
    const event = (raw ?? {}) as LineEvent;
    const source = sourceOf(event);
    const eventId = typeof event.webhookEventId === 'string' ? event.webhookEventId : undefined;
    if (!source || !eventId) {
      logger.debug('event without a source or webhookEventId ignored', { type: event.type });
      continue;
    }
    if (
      event.type !== 'message' ||
      event.message?.type !== 'text' ||
      typeof event.message.text !== 'string'
    ) {
      logger.debug('event type not handled', { type: event.type, messageType: event.message?.type, eventId });
      continue;
    }
    const userId = event.source?.userId;
    messages.push({
      eventId,
      source,
      text: event.message.text,
      timestamp: typeof event.timestamp === 'number' ? event.timestamp : 0,
      ...(typeof userId === 'string' && { sender: { userId } }),
      ...(typeof event.replyToken === 'string' && { replyToken: event.replyToken }),
      ...(typeof event.message.quoteToken === 'string' && { quoteToken: event.message.quoteToken }),
    });
  }
  return messages;
}
