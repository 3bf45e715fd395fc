import { isMessage, type InboundMessage, type InboxItem } from '../domain/index.js';

/**
 * What an accept does with an item, given the source's inbox (docs/security.md, "A source's
 * inbox"): `append` it, or `replace` the last waiting item — the overflow item — with one that
 * counts it too.
 */
export type InboxAdmission =
  | { readonly kind: 'append'; readonly item: InboxItem }
  | { readonly kind: 'replace'; readonly item: InboundMessage };

/** The state of a source's inbox an accept decides on. */
export interface InboxState {
  /** How many items wait (a store may stop counting at `maxInbox`). */
  readonly waiting: number;
  /** The newest waiting item. */
  readonly last: InboxItem | undefined;
}

/**
 * Below `maxInbox` waiting items a message is appended. At the cap it is not kept: the first
 * such message becomes one overflow item, and later ones only count in it, so the inbox holds
 * at most `maxInbox + 1` messages however many arrive behind a stuck turn. Its turn tells the
 * user how many were not kept. Unsend, unfollow and leave are always appended: they are what
 * the user asked to happen to their data; so is a reminder due, which the user could not send
 * again (at most 50 wait per chat), and a tool's finished background work (one per call the
 * model made). Pure.
 * @example
 * admitToInbox(item, { waiting: 100, last }, 100) // → { kind: 'replace', item: overflow }
 */
export function admitToInbox(item: InboxItem, inbox: InboxState, maxInbox: number): InboxAdmission {
  const ownErrand = isMessage(item) && (item.lineEvent === 'reminder' || item.lineEvent === 'toolFinished');
  if (!isMessage(item) || ownErrand || inbox.waiting < maxInbox) {
    return { kind: 'append', item };
  }
  const last = inbox.last;
  const previous = last && isMessage(last) ? last.overflow : undefined;
  const count = (previous?.count ?? 0) + 1;
  const addressed = (previous?.addressed ?? 0) + (item.quiet ? 0 : 1);
  const overflow: InboundMessage = {
    // The first overflowing event keeps the item's key; the newest gives the reply token.
    eventId: previous ? last!.eventId : item.eventId,
    source: item.source,
    ...(item.sender && { sender: item.sender }),
    text: `[${count} ${count === 1 ? 'message was' : 'messages were'} not kept: the inbox was full]`,
    timestamp: item.timestamp,
    ...(item.replyToken !== undefined && { replyToken: item.replyToken }),
    ...(addressed === 0 && { quiet: true }),
    overflow: { count, addressed },
  };
  return previous ? { kind: 'replace', item: overflow } : { kind: 'append', item: overflow };
}
