import type { Actor } from 'xstate';
import type { ConversationMachine } from './conversation-machine.js';

/**
 * Lets a conversation actor run without a store: every `checkpoint.needed` is answered at
 * once, as if the snapshot had been made durable. For tests, benchmarks and tools that drive
 * one conversation in memory; the actor host answers only after a real checkpoint.
 * @example
 * const actor = createActor(machine, { systemId: CONVERSATION_SYSTEM_ID, input: { source } });
 * answerCheckpointsAtOnce(actor).start();
 */
export function answerCheckpointsAtOnce(actor: Actor<ConversationMachine>): Actor<ConversationMachine> {
  actor.on('checkpoint.needed', () => actor.send({ type: 'checkpoint.done', resumed: false }));
  return actor;
}
