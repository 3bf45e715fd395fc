import { createActor, waitFor, type Actor, type Snapshot, type SnapshotFrom } from 'xstate';
import type { InboundMessage, Source } from '../../src/domain/index.js';
import { silentLogger } from '../../src/logging/index.js';
import {
  answerCheckpointsAtOnce,
  AWAITING_CHECKPOINT_TAG,
  CONVERSATION_SYSTEM_ID,
  provideConversationServices,
  type ConversationMachine,
  type ConversationSettings,
  type DeliveryPort,
  type DeliveryReceipt,
  type DeliveryRequest,
} from '../../src/machines/index.js';
import type { ModelPort } from '../../src/model/index.js';
import { ToolRegistry, replyTool, skipTool, type Tool } from '../../src/tools/index.js';

/** A delivery port that records what it was asked to send; it can be told to fail. */
export class RecordingDelivery implements DeliveryPort {
  readonly requests: DeliveryRequest[] = [];
  failNext = 0;

  deliver(request: DeliveryRequest, _signal?: AbortSignal): Promise<DeliveryReceipt> {
    this.requests.push(request);
    if (this.failNext > 0) {
      this.failNext--;
      return Promise.reject(new Error('LINE is down'));
    }
    return Promise.resolve({ method: request.replyToken ? 'reply' : 'push' });
  }

  get texts(): string[] {
    return this.requests.flatMap((request) => request.texts);
  }
}

export const userSource: Source = { kind: 'user', id: 'U1234567890abcdef1234567890abcdef' };

let eventCounter = 0;
export function inbound(text: string, overrides: Partial<InboundMessage> = {}): InboundMessage {
  eventCounter++;
  return {
    eventId: `01HEVENT${String(eventCounter).padStart(18, '0')}`,
    source: userSource,
    sender: { userId: userSource.id, displayName: 'Aiko' },
    text,
    timestamp: 1_700_000_000_000 + eventCounter,
    replyToken: `reply-token-${eventCounter}`,
    ...overrides,
  };
}

export interface HarnessOptions {
  model: ModelPort;
  tools?: Tool[];
  settings?: Partial<ConversationSettings>;
  delivery?: RecordingDelivery;
  /** The services' clock (default: the system clock). */
  now?: () => number;
}

export function conversationMachineFor(
  options: HarnessOptions & { delivery: RecordingDelivery },
): ConversationMachine {
  const tools = new ToolRegistry({ defaultTimeoutMs: 200 });
  for (const tool of [replyTool, skipTool, ...(options.tools ?? [])]) tools.register(tool);
  return provideConversationServices({
    model: options.model,
    tools,
    delivery: options.delivery,
    systemInstruction: () => 'You are a test bot.',
    clock: { now: options.now ?? (() => Date.now()) },
    logger: silentLogger,
  });
}

/**
 * Starts a conversation actor with fakes, its checkpoints answered at once (no store); returns
 * it with the recording delivery and the state log.
 */
export function startConversation(options: HarnessOptions) {
  const delivery = options.delivery ?? new RecordingDelivery();
  const machine = conversationMachineFor({ ...options, delivery });
  const states: string[] = [];
  const actor = createActor(machine, {
    systemId: CONVERSATION_SYSTEM_ID,
    input: { source: userSource, ...(options.settings && { settings: options.settings }) },
    inspect: (event) => {
      // Microsteps show the transient states (deciding, done) a macrostep passes through.
      if (
        (event.type === '@xstate.snapshot' || event.type === '@xstate.microstep') &&
        event.actorRef === actor
      ) {
        const value = JSON.stringify((event.snapshot as SnapshotFrom<ConversationMachine>).value);
        if (states.at(-1) !== value) states.push(value);
      }
    },
  });
  answerCheckpointsAtOnce(actor).start();
  return { actor, delivery, states, machine };
}

/** Starts a turn of these messages, as the host does when the conversation is idle. */
export function say(actor: Actor<ConversationMachine>, ...messages: InboundMessage[]) {
  actor.send({ type: 'line.messages', messages, at: Date.now() });
}

/** Sends one message and waits until its turn is over. */
export async function sayAndWait(actor: Actor<ConversationMachine>, ...messages: InboundMessage[]) {
  say(actor, ...messages);
  return untilIdle(actor);
}

export function untilIdle(actor: Actor<ConversationMachine>) {
  return waitFor(actor, (snapshot) => snapshot.matches('idle'), { timeout: 2000 });
}

/**
 * Restores a conversation actor from persisted JSON, its checkpoints answered at once; a
 * snapshot taken while a side effect waited for its checkpoint is answered as resumed.
 */
export function restoreConversation(machine: ConversationMachine, json: string) {
  const actor = createActor(machine, {
    systemId: CONVERSATION_SYSTEM_ID,
    snapshot: JSON.parse(json) as Snapshot<unknown>,
    input: { source: userSource },
  });
  answerCheckpointsAtOnce(actor).start();
  if (actor.getSnapshot().hasTag(AWAITING_CHECKPOINT_TAG))
    actor.send({ type: 'checkpoint.done', resumed: true });
  return actor;
}
