import type { InboxItem } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { SourceStore } from './source-store.js';

/** How many events were new and how many LINE had sent before. */
export interface AcceptResult {
  readonly accepted: number;
  readonly duplicates: number;
}

/** {@link AcceptResult}, and which sources got new work (first-seen order). */
export interface AcceptedEvents extends AcceptResult {
  readonly sources: readonly string[];
}

/**
 * "Durably accepted" (docs/architecture.md): claims each event's id and appends it to its
 * source's inbox. A source's events go in one after another, in the order given (LINE's order
 * is the inbox order); different sources go side by side, so a body with many chats still fits
 * in LINE's 2 s. A claimed id is a redelivery: counted, and logged by event and source id only
 * (never the text). A store failure rejects, so the webhook answers 500 and LINE redelivers.
 * The local actor host and the Lambda webhook both accept through here.
 * @example
 * const { accepted, duplicates, sources } = await acceptEvents(store, items, logger);
 */
export async function acceptEvents(
  store: Pick<SourceStore, 'accept'>,
  items: readonly InboxItem[],
  logger: Logger,
): Promise<AcceptedEvents> {
  const bySource = new Map<string, InboxItem[]>();
  for (const item of items) bySource.set(item.source.id, [...(bySource.get(item.source.id) ?? []), item]);
  const withNewWork = new Set<string>();
  let accepted = 0;
  await Promise.all(
    [...bySource.entries()].map(async ([sourceId, sourceItems]) => {
      for (const item of sourceItems) {
        if (await store.accept(item)) {
          accepted++;
          withNewWork.add(sourceId);
        } else {
          logger.info('duplicate event ignored', { eventId: item.eventId, sourceId });
        }
      }
    }),
  );
  const sources = [...bySource.keys()].filter((sourceId) => withNewWork.has(sourceId));
  return { accepted, duplicates: items.length - accepted, sources };
}
