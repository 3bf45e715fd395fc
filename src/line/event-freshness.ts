import type { webhook } from '@line/bot-sdk';
import { defaults } from '../defaults/index.js';
import { isMessage, type InboxItem } from '../domain/index.js';
import type { Logger } from '../logging/index.js';

/**
 * The events young enough for the duplicate check to know them. A signed body stays valid
 * forever: one captured and posted again after its event ids' claims expired would pass as new
 * (a replayed unfollow forgot the chat, a message was stored twice). LINE redelivers within
 * hours, so nothing it sends is that old: an older event is refused, with a warning.
 */
export function withinReplayWindow(
  events: readonly webhook.Event[],
  options: { readonly now: number; readonly logger: Logger },
): webhook.Event[] {
  return events.filter((event) => {
    if (options.now - event.timestamp <= defaults.line.replayWindowMs) return true;
    options.logger.warn('webhook event too old to tell from a replay: refused', {
      eventId: event.webhookEventId,
      type: event.type,
      ageHours: Math.round((options.now - event.timestamp) / 3_600_000),
    });
    return false;
  });
}

/** The messages judged stale, and every item as it goes into the inbox. */
export interface FreshnessResult {
  readonly items: InboxItem[];
  readonly stale: number;
}

/**
 * Marks messages older than `maxAgeMs` (by the event's own `timestamp`) as stale and quiet: they
 * are stored and join history as context, but start no model call and no delivery — answering a
 * message of hours ago by push costs quota and surprises the user. Judged once, when the webhook
 * accepts the event: a dead-letter re-run or a retried drain reads the inbox item as it was
 * marked, so work kaiwa itself delayed is never stale. Unsend and forget events always apply.
 */
export function markStale(
  items: readonly InboxItem[],
  options: { readonly now: number; readonly maxAgeMs: number },
): FreshnessResult {
  let stale = 0;
  const marked = items.map((item) => {
    if (!isMessage(item) || !(options.now - item.timestamp > options.maxAgeMs)) return item;
    stale++;
    return { ...item, quiet: true, stale: true };
  });
  return { items: marked, stale };
}
