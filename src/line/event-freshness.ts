import { isMessage, type InboxItem } from '../domain/index.js';

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
