import type { InboxItem } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { SourceStore } from './source-store.js';

/** How many events were new and how many LINE had sent before. */
export interface AcceptResult {
  readonly accepted: number;
  readonly duplicates: number;
}

/**
 * "Durably accepted" (docs/architecture.md): claims each event's id and appends it to its
 * source's inbox. A source's events go in one after another, in the order given (LINE's order
 * is the inbox order); different sources go side by side, so a body with many chats still fits
 * in LINE's 2 s. A claimed id is a redelivery: counted, and logged by event and source id only
 * (never the text). `onNewWork` hears of each source that got a new item once its events are
 * in — also when another source's failed: the store failure then rejects, after every source is
 * done, so the webhook answers 500 and LINE redelivers (the stored ones come back as duplicates,
 * and their sources were told already). The local actor host and the Lambda webhook both accept
 * through here.
 * @example
 * const { accepted, duplicates } = await acceptEvents(store, items, logger, (id) => host.notify(id));
 */
export async function acceptEvents(
  store: Pick<SourceStore, 'accept'>,
  items: readonly InboxItem[],
  logger: Logger,
  onNewWork: (sourceId: string) => void = () => {},
): Promise<AcceptResult> {
  const bySource = new Map<string, InboxItem[]>();
  for (const item of items) bySource.set(item.source.id, [...(bySource.get(item.source.id) ?? []), item]);
  let accepted = 0;
  const outcomes = await Promise.allSettled(
    [...bySource.entries()].map(async ([sourceId, sourceItems]) => {
      let newWork = false;
      try {
        for (const item of sourceItems) {
          if (await store.accept(item)) {
            accepted++;
            newWork = true;
          } else {
            logger.info('duplicate event ignored', { eventId: item.eventId, sourceId });
          }
        }
      } finally {
        if (newWork) onNewWork(sourceId);
      }
    }),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return { accepted, duplicates: items.length - accepted };
}
