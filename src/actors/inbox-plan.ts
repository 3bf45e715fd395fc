import { isMessage, type ForgetEvent, type InboundMessage, type UnsendEvent } from '../domain/index.js';
import type { QueuePolicy } from '../machines/index.js';
import type { StoredInboxItem } from '../persistence/index.js';

/** What a source does next with what waits in its inbox, read oldest first. */
export type InboxPlan =
  /** Run one turn of these messages; `keys` are consumed by the turn's first checkpoint. */
  | {
      readonly kind: 'turn';
      readonly messages: readonly InboundMessage[];
      readonly keys: readonly string[];
      /** How many of `messages` came from `replay` (they have no inbox item). */
      readonly replayed: number;
    }
  /**
   * The user took a message back. `storedSeqs`: its entries in the whole stored history, older
   * than the window in memory too (found before the plan is carried out).
   */
  | {
      readonly kind: 'unsend';
      readonly key: string;
      readonly messageId: string;
      /** The unsend's time. */
      readonly at: number;
      readonly storedSeqs?: readonly number[];
      /** The message's inbox item, when it still waits there: consumed with the unsend, no turn. */
      readonly waitingKey?: string;
      /**
       * `key` is the message's own item, which its unsend marked from beyond what was read: it
       * goes unanswered; the unsend itself comes later, as one of a message already gone.
       */
      readonly markedOnly?: true;
    }
  /**
   * Unfollow or leave: everything up to and including this item goes — planned before what waits
   * ahead of it, which is dropped unanswered.
   */
  | { readonly kind: 'forget'; readonly key: string; readonly event: ForgetEvent }
  /** A message whose turn kept starting and never finished: set aside, with a notice to the user. */
  | { readonly kind: 'quarantine'; readonly key: string; readonly message: InboundMessage }
  /** An item whose stored text does not read back: consumed without a turn, and logged. */
  | {
      readonly kind: 'unreadable';
      readonly key: string;
      readonly eventId: string | undefined;
      readonly error: string;
    }
  /** Nothing waits. */
  | { readonly kind: 'none' };

export interface PlanRules {
  readonly queuePolicy: QueuePolicy;
  /** Beyond this many waiting turns, the newest messages merge into one. */
  readonly maxQueuedTurns: number;
  /** A message taken this many times by turns that never finished is quarantined (default: never). */
  readonly maxAttempts?: number;
}

/**
 * Decides the next step from the inbox (oldest first) and the messages a migrated snapshot
 * left to run again (`replay`, first). An unfollow or leave comes before the messages waiting
 * ahead of it (they go with it), and an unsend takes a message still waiting with it. Messages
 * become turns by the queue policy: `queue` — one message per turn, except that beyond
 * `maxQueuedTurns` waiting the newest merge into the last one (`mergeFrom` remembers where that
 * merged turn starts, across reads); `merge` — everything that waits, in one turn. The overflow
 * item of a full inbox is always a turn alone. A run of quiet messages (group talk not addressed
 * to the bot) goes in one turn: it calls no model. Pure.
 */
export function planInbox(
  items: readonly StoredInboxItem[],
  replay: readonly InboundMessage[],
  rules: PlanRules,
  mergeFrom: string | undefined,
): { plan: InboxPlan; mergeFrom: string | undefined } {
  if (replay.length > 0) {
    return { plan: { kind: 'turn', messages: [replay[0]!], keys: [], replayed: 1 }, mergeFrom };
  }
  const first = items[0];
  if (!first) return { plan: { kind: 'none' }, mergeFrom: undefined };
  // An unfollow or leave takes what waits before it along, unanswered: no turn can reach the
  // user any more, and their words must not go to the model after they asked for them to go.
  const forget = firstForget(items);
  if (forget) return { plan: { kind: 'forget', ...forget }, mergeFrom: undefined };
  if (first.unreadable !== undefined) {
    const { key, eventId, unreadable: error } = first;
    return { plan: { kind: 'unreadable', key, eventId, error }, mergeFrom };
  }
  const takenBack = unsendOfWaiting(items);
  if (takenBack) {
    const { unsend, waitingKey } = takenBack;
    const { messageId, timestamp: at } = unsend.item;
    return { plan: { kind: 'unsend', key: unsend.key, messageId, at, waitingKey }, mergeFrom };
  }
  if (first.item.kind === 'unsend') {
    const { messageId, timestamp: at } = first.item;
    return { plan: { kind: 'unsend', key: first.key, messageId, at }, mergeFrom };
  }
  // Marked by an unsend this read did not reach: a turn would be refused at its checkpoint.
  if (first.takenBack && isMessage(first.item) && first.item.messageId !== undefined) {
    const { messageId, timestamp: at } = first.item;
    return { plan: { kind: 'unsend', key: first.key, messageId, at, markedOnly: true }, mergeFrom };
  }
  if (rules.maxAttempts !== undefined && first.attempts >= rules.maxAttempts && isMessage(first.item)) {
    return { plan: { kind: 'quarantine', key: first.key, message: first.item }, mergeFrom: undefined };
  }

  // The messages that wait before the next unsend or forget. The overflow item of a full inbox
  // is a turn of its own: it gets the inbox-full notice, never a model call (docs/security.md).
  const run: { key: string; message: InboundMessage }[] = [];
  for (const { key, item, takenBack } of items) {
    // A marked message waits for its own step (above), never inside another turn.
    if (!item || !isMessage(item) || takenBack || (item.overflow && run.length > 0)) break;
    run.push({ key, message: item });
    if (item.overflow) break;
  }
  const quiet = run.findIndex(({ message }) => !message.quiet);
  let take: number;
  let next = run.some(({ message }) => message.eventId === mergeFrom) ? mergeFrom : undefined;
  if (quiet !== 0) {
    take = quiet < 0 ? run.length : quiet;
  } else if (rules.queuePolicy === 'merge') {
    take = run.length;
  } else {
    if (next === undefined && run.length > rules.maxQueuedTurns) {
      next = run[Math.max(0, rules.maxQueuedTurns - 1)]!.message.eventId;
    }
    take = run[0]!.message.eventId === next ? run.length : 1;
    if (take > 1) next = undefined;
  }
  const chosen = run.slice(0, take);
  return {
    plan: {
      kind: 'turn',
      messages: chosen.map(({ message }) => message),
      keys: chosen.map(({ key }) => key),
      replayed: 0,
    },
    mergeFrom: next,
  };
}

function firstForget(
  items: readonly StoredInboxItem[],
): { readonly key: string; readonly event: ForgetEvent } | undefined {
  for (const { key, item } of items) if (item?.kind === 'forget') return { key, event: item };
  return undefined;
}

/**
 * An unsend of a message still waiting in the inbox (its turn not started; ahead of the unsend,
 * or behind it when LINE redelivered the message late), with that message's inbox key: both go
 * in one step, and the message never has a turn.
 */
function unsendOfWaiting(
  items: readonly StoredInboxItem[],
):
  | { readonly unsend: { readonly key: string; readonly item: UnsendEvent }; readonly waitingKey: string }
  | undefined {
  const waiting = waitingMessageKeys(items);
  for (const { key, item } of items) {
    if (item?.kind !== 'unsend') continue;
    const waitingKey = waiting.get(item.messageId);
    if (waitingKey !== undefined) return { unsend: { key, item }, waitingKey };
  }
  return undefined;
}

/** The inbox key of each waiting message, by its LINE message id. */
function waitingMessageKeys(items: readonly StoredInboxItem[]): Map<string, string> {
  const waiting = new Map<string, string>();
  for (const { key, item } of items) {
    if (item && isMessage(item) && item.messageId !== undefined) waiting.set(item.messageId, key);
  }
  return waiting;
}

/**
 * Whether `items` hold what takes messages of `page` along unanswered: an unfollow or leave, or
 * the unsend of one of them. A plan reads on behind a full page for it (`waitingItems`).
 */
export function takesAlong(items: readonly StoredInboxItem[], page: readonly StoredInboxItem[]): boolean {
  const waiting = waitingMessageKeys(page);
  return items.some(
    ({ item }) => item?.kind === 'forget' || (item?.kind === 'unsend' && waiting.has(item.messageId)),
  );
}

/**
 * The inbox's first item set aside, when it is a message that reads back: after a turn that
 * could never be stored and left nothing durable, that message is the one it was answering.
 */
export function setAsidePlan(
  items: readonly StoredInboxItem[],
): (InboxPlan & { kind: 'quarantine' }) | undefined {
  const first = items[0];
  if (first?.unreadable !== undefined || !first || !isMessage(first.item)) return undefined;
  return { kind: 'quarantine', key: first.key, message: first.item };
}

/** The inbox keys a plan consumes. */
export function planKeys(plan: InboxPlan): readonly string[] {
  switch (plan.kind) {
    case 'turn':
      return plan.keys;
    case 'unsend':
      return plan.waitingKey === undefined ? [plan.key] : [plan.waitingKey, plan.key];
    case 'forget':
    case 'quarantine':
    case 'unreadable':
      return [plan.key];
    case 'none':
      return [];
  }
}
