import { createActor, type Actor, type Snapshot } from 'xstate';
import type { HistoryEntry, InboundMessage, JsonObject, Source } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import {
  CONVERSATION_MACHINE_VERSION,
  CONVERSATION_SYSTEM_ID,
  type ConversationMachine,
  type ConversationSettings,
} from '../machines/index.js';
import type { StoredConversation } from '../persistence/index.js';

type ActorOptions = NonNullable<Parameters<typeof createActor<ConversationMachine>>[1]>;

/**
 * Creates a source's actor: restored from its stored snapshot when it can be, otherwise
 * (a snapshot from an older machine, say) fresh at idle with the old history and the old
 * queued messages sent in again — never a crash, never a lost message.
 */
export function createConversationActor(params: {
  machine: ConversationMachine;
  source: Source;
  settings: Partial<ConversationSettings>;
  stored: StoredConversation | undefined;
  logger: Logger;
  inspect?: ActorOptions['inspect'];
}): { actor: Actor<ConversationMachine>; replay: InboundMessage[] } {
  const { machine, source, settings, stored, logger } = params;
  const options = { systemId: CONVERSATION_SYSTEM_ID, ...(params.inspect && { inspect: params.inspect }) };
  const fresh = (history: readonly HistoryEntry[] = []) =>
    createActor(machine, { ...options, input: { source, settings, history } });

  if (!stored) return { actor: fresh(), replay: [] };
  if (stored.machineVersion === CONVERSATION_MACHINE_VERSION) {
    try {
      const actor = createActor(machine, {
        ...options,
        snapshot: stored.snapshot as unknown as Snapshot<unknown>,
        input: { source, settings },
      });
      // Resolving the state value fails here, not later, when a state no longer exists.
      actor.getSnapshot().matches('idle');
      return { actor, replay: [] };
    } catch (error) {
      logger.warn('stored snapshot cannot be restored; starting at idle with its history', { error });
    }
  } else {
    logger.warn('stored snapshot is from another machine version; starting at idle with its history', {
      storedVersion: stored.machineVersion,
      machineVersion: CONVERSATION_MACHINE_VERSION,
    });
  }
  const salvaged = salvage(stored.snapshot);
  // The caller sends `replay` once the actor has started: the messages re-enter in their old order.
  return { actor: fresh(salvaged.history), replay: salvaged.waiting };
}

function salvage(snapshot: JsonObject): { history: HistoryEntry[]; waiting: InboundMessage[] } {
  const context = (snapshot.context ?? {}) as {
    history?: HistoryEntry[];
    pending?: InboundMessage[][];
    turn?: { messages?: InboundMessage[] } | null;
  };
  // Queued messages never reached history; the interrupted turn's did, and leave it again.
  const history = Array.isArray(context.history) ? context.history : [];
  // A turn that was cut off is run again: its messages leave history and wait once more.
  const interrupted = context.turn?.messages ?? [];
  const interruptedIds = new Set(interrupted.map((message) => message.eventId));
  const pending = Array.isArray(context.pending) ? context.pending.flat() : [];
  return {
    history: trimInterruptedTurn(history, interruptedIds),
    waiting: [...interrupted, ...pending],
  };
}

function trimInterruptedTurn(history: HistoryEntry[], interruptedIds: Set<string>): HistoryEntry[] {
  if (interruptedIds.size === 0) return history;
  const firstOfTurn = history.findIndex(
    (entry) => entry.role === 'user' && interruptedIds.has(entry.eventId),
  );
  return firstOfTurn < 0 ? history : history.slice(0, firstOfTurn);
}
