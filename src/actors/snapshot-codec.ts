import { createActor, type Actor, type Snapshot } from 'xstate';
import {
  boundHistory,
  isJsonObject,
  type HistoryEntry,
  type InboundMessage,
  type JsonObject,
  type Source,
} from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import {
  CONVERSATION_MACHINE_VERSION,
  CONVERSATION_SYSTEM_ID,
  defaultConversationSettings,
  type ConversationMachine,
  type ConversationSettings,
  type SequencedEntry,
} from '../machines/index.js';
import type { HistoryRecord, SourceHead } from '../persistence/source-store.js';

type ConversationActor = Actor<ConversationMachine>;
type ActorOptions = NonNullable<Parameters<typeof createActor<ConversationMachine>>[1]>;

/** What one checkpoint writes of the conversation (docs/persistence.md). */
export interface EncodedConversation {
  /** The persisted snapshot without `history` and `settings`: the head's few KB. */
  readonly snapshot: JsonObject;
  /** The entries above the last saved `seq`, oldest first. */
  readonly appended: HistoryRecord[];
  /** The highest `seq` in memory once these are written. */
  readonly lastSeq: number;
  /** A turn is running. */
  readonly busy: boolean;
}

/**
 * Takes `history` and `settings` out of the conversation's persisted snapshot: settings come
 * from configuration at run time, history is stored as records of its own, and a checkpoint
 * writes only the entries above `savedSeq`.
 */
export function encodeConversation(actor: ConversationActor, savedSeq: number): EncodedConversation {
  const snapshot = actor.getSnapshot();
  const { history, settings, ...context } = snapshot.context;
  void settings;
  // XState walks the whole context for actor references when it persists a snapshot: handed
  // the context without its history, it walks only the head's few fields (docs/runtime.md).
  const persisted = actor.logic.getPersistedSnapshot({ ...snapshot, context } as unknown as typeof snapshot);
  const appended: HistoryRecord[] = [];
  // Newest last: only the tail above `savedSeq` is new.
  let first = history.length;
  while (first > 0 && history[first - 1]!.seq > savedSeq) first--;
  for (let index = first; index < history.length; index++) {
    const { seq, ...entry } = history[index]!;
    appended.push({ seq, entry });
  }
  return {
    snapshot: persisted as unknown as JsonObject,
    appended,
    lastSeq: snapshot.context.lastSeq,
    busy: !snapshot.matches('idle'),
  };
}

/** What `restoreConversation` needs: the store's head and history window, and the configuration. */
export interface RestoreParams {
  readonly machine: ConversationMachine;
  readonly source: Source;
  /** From configuration, at run time: never what a stored snapshot once had. */
  readonly settings: Partial<ConversationSettings>;
  readonly head: SourceHead | undefined;
  readonly history: readonly HistoryRecord[];
  readonly logger: Logger;
  readonly inspect?: ActorOptions['inspect'];
}

/** A conversation actor (not started) and the messages to feed again before the inbox. */
export interface RestoredConversation {
  readonly actor: ConversationActor;
  /**
   * Messages an older snapshot held that no inbox item holds any more (its queue, its
   * interrupted turn): they run again, first, in their old order.
   */
  readonly replay: readonly InboundMessage[];
  /** The head held a snapshot of this machine version and it was restored as it was. */
  readonly restored: boolean;
}

/**
 * Creates a source's conversation actor from its stored head and history window: the
 * snapshot with the configured settings and the loaded history put back. A snapshot from an
 * older machine (or one that no longer resolves) starts fresh at idle with its history —
 * never a crash, never a lost message.
 */
export function restoreConversation(params: RestoreParams): RestoredConversation {
  const { machine, source, head, logger } = params;
  const settings: ConversationSettings = { ...defaultConversationSettings, ...params.settings };
  const options = { systemId: CONVERSATION_SYSTEM_ID, ...(params.inspect && { inspect: params.inspect }) };
  const limits = { maxEntries: settings.maxHistoryEntries, maxBytes: settings.maxHistoryBytes };
  const window = boundHistory(
    params.history.map((record): SequencedEntry => ({ ...record.entry, seq: record.seq })),
    limits,
  );
  const fresh = (history: readonly SequencedEntry[], lastSeq: number) =>
    createActor(machine, { ...options, input: { source, settings, history, lastSeq } });
  const lastSeq = head?.lastSeq ?? 0;

  if (!head?.snapshot) return { actor: fresh(window, lastSeq), replay: [], restored: false };
  if (head.machineVersion === CONVERSATION_MACHINE_VERSION) {
    try {
      const stored = head.snapshot as { context?: JsonObject };
      const context = isJsonObject(stored.context) ? stored.context : {};
      const snapshot = {
        ...stored,
        context: {
          ...context,
          settings,
          history: window,
          lastSeq: Math.max(Number(context.lastSeq ?? 0), lastSeq),
        },
      };
      const actor = createActor(machine, {
        ...options,
        snapshot: snapshot as unknown as Snapshot<unknown>,
        input: { source, settings },
      });
      // Resolving the state value fails here, not later, when a state no longer exists.
      actor.getSnapshot().matches('idle');
      return { actor, replay: [], restored: true };
    } catch (error) {
      logger.warn('stored snapshot cannot be restored; starting at idle with its history', { error });
      return { actor: fresh(window, lastSeq), replay: [], restored: false };
    }
  }
  logger.warn('stored snapshot is from another machine version; starting at idle with its history', {
    storedVersion: head.machineVersion,
    machineVersion: CONVERSATION_MACHINE_VERSION,
  });
  const salvaged = salvageFirstWave(head.snapshot);
  // First-wave snapshots held their history inline: it becomes entries, written by the next
  // checkpoint (their seq numbers continue above the head's).
  const inline = salvaged.history.map((entry, index) => ({ ...entry, seq: lastSeq + index + 1 }));
  const history = window.length > 0 ? window : boundHistory(inline, limits);
  return {
    actor: fresh(history, Math.max(lastSeq, history.at(-1)?.seq ?? 0)),
    replay: salvaged.waiting,
    restored: false,
  };
}

/**
 * A first-wave snapshot: history inline, queued messages in `pending`, the interrupted turn's
 * messages in `turn`. A turn that was cut off runs again: its messages leave history and wait
 * once more, ahead of the queued ones.
 */
function salvageFirstWave(snapshot: JsonObject): { history: HistoryEntry[]; waiting: InboundMessage[] } {
  const context = (snapshot.context ?? {}) as {
    history?: HistoryEntry[];
    pending?: InboundMessage[][];
    turn?: { messages?: InboundMessage[] } | null;
  };
  const history = Array.isArray(context.history) ? context.history.map(withoutSeq) : [];
  const interrupted = context.turn?.messages ?? [];
  const interruptedIds = new Set(interrupted.map((message) => message.eventId));
  const pending = Array.isArray(context.pending) ? context.pending.flat() : [];
  return {
    history: trimInterruptedTurn(history, interruptedIds),
    waiting: [...interrupted, ...pending],
  };
}

function withoutSeq(entry: HistoryEntry & { seq?: number }): HistoryEntry {
  const { seq, ...rest } = entry;
  void seq;
  return rest;
}

function trimInterruptedTurn(history: HistoryEntry[], interruptedIds: Set<string>): HistoryEntry[] {
  if (interruptedIds.size === 0) return history;
  const firstOfTurn = history.findIndex(
    (entry) => entry.role === 'user' && interruptedIds.has(entry.eventId),
  );
  return firstOfTurn < 0 ? history : history.slice(0, firstOfTurn);
}
