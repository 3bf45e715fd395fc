import { createActor, waitFor, type Actor, type Snapshot, type SnapshotFrom } from 'xstate';
import type { InboundMessage, Source } from '../../src/domain/index.js';
import { silentLogger } from '../../src/logging/index.js';
import {
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

  deliver(request: DeliveryRequest): Promise<DeliveryReceipt> {
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
  /** Replaces the checkpoint (default: resolves at once). */
  checkpoint?: (sourceId: string) => Promise<void>;
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
    checkpoint: options.checkpoint ?? (() => Promise.resolve()),
    clock: { now: () => 0 },
    logger: silentLogger,
  });
}

/** Starts a conversation actor with fakes; returns it with the recording delivery and the state log. */
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
  actor.start();
  return { actor, delivery, states, machine };
}

export function idleWithNothingPending(actor: Actor<ConversationMachine>) {
  return waitFor(actor, (snapshot) => snapshot.matches('idle') && snapshot.context.pending.length === 0, {
    timeout: 2000,
  });
}

/** Restores a conversation actor from persisted JSON, as the actor host does. */
export function restoreConversation(machine: ConversationMachine, json: string) {
  const actor = createActor(machine, {
    systemId: CONVERSATION_SYSTEM_ID,
    snapshot: JSON.parse(json) as Snapshot<unknown>,
    input: { source: userSource },
  });
  actor.start();
  return actor;
}
