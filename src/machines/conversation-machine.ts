import {
  assign,
  enqueueActions,
  fromPromise,
  setup,
  spawnChild,
  stopChild,
  type DoneActorEvent,
} from 'xstate';
import { REPLY_TOOL_NAME, type ToolOutcome } from '../domain/index.js';
import type { ModelResponse } from '../model/index.js';
import {
  defaultConversationSettings,
  type ConversationContext,
  type ConversationEvent,
  type ConversationInput,
  type DeliveryReceipt,
  type DeliveryRequest,
  type ExecuteToolInput,
  type GenerateInput,
} from './conversation-types.js';
import { turnShouldStop } from './stop-conditions.js';
import { LimitReachedError } from './limit-reached-error.js';
import {
  allCallsSettled,
  closeStep,
  currentTurn,
  enqueueMessage,
  finishTurn,
  isQuietTurn,
  recordDelivery,
  recordModelResponse,
  recordOutcome,
  refuseRepeatedReplies,
  startTurn,
  textsToDeliver,
  unsendMessage,
} from './turn-updates.js';

/** Bumped when a change makes older persisted snapshots unrestorable as they are. */
export const CONVERSATION_MACHINE_VERSION = 1;

/** The id under which a conversation actor registers itself, so its children can read its context. */
export const CONVERSATION_SYSTEM_ID = 'conversation';

type ToolChildId = `tool-${number}`;
const toolChildId = (index: number): ToolChildId => `tool-${index}`;

/** A tool child finished; XState sends this to the conversation itself. */
type ToolSettledEvent = DoneActorEvent<ToolOutcome, ToolChildId>;

function notProvided(name: string) {
  return () =>
    Promise.reject(new Error(`the "${name}" actor was not provided; use provideConversationServices()`));
}

/**
 * One LINE source's conversation: idle → receive → generate → toolCall (→ generate …) → done → idle.
 * Side effects are the named actors below; `provideConversationServices` supplies the real ones
 * and tests swap them with `machine.provide`.
 */
export const conversationMachine = setup({
  types: {
    context: {} as ConversationContext,
    events: {} as ConversationEvent | ToolSettledEvent,
    input: {} as ConversationInput,
  },
  actors: {
    /**
     * One model call; reads the history from the conversation actor. It waits until the
     * snapshot that holds the received message is durable before calling the model.
     */
    generate: fromPromise<ModelResponse, GenerateInput>(notProvided('generate')),
    /** One tool call: one child per call, so a restored step re-runs only unsettled calls. */
    executeTool: fromPromise<ToolOutcome, ExecuteToolInput>(notProvided('executeTool')),
    /** The LINE reply (or push) of this turn's text for the user. */
    reply: fromPromise<DeliveryReceipt, DeliveryRequest>(notProvided('reply')),
  },
  guards: {
    hasPendingTurn: ({ context }) => context.pending.length > 0,
    turnIsQuiet: ({ context }) => isQuietTurn(context.turn),
    limitReached: ({ event }) => LimitReachedError.isInstance((event as { error?: unknown }).error),
    hasFunctionCalls: (_, params: { calls: number }) => params.calls > 0,
    stepSettledWithTexts: ({ context }) =>
      allCallsSettled(context.turn) && textsToDeliver(context.turn).length > 0,
    stepSettled: ({ context }) => allCallsSettled(context.turn),
    turnShouldStop: ({ context }) => turnShouldStop(currentTurn(context), context.settings) !== undefined,
  },
}).createMachine({
  id: 'conversation',
  context: ({ input }) => ({
    source: input.source,
    settings: { ...defaultConversationSettings, ...input.settings },
    history: input.history ?? [],
    pending: [],
    turn: null,
    lastTurn: null,
    recentEventIds: [],
    profiles: {},
    chat: {},
    usage: [],
  }),
  // Accepted in every state: a message that arrives during a turn waits its turn.
  on: {
    'line.message': { actions: assign(({ context, event }) => enqueueMessage(context, event.message)) },
    'line.unsend': { actions: assign(({ context, event }) => unsendMessage(context, event.messageId)) },
  },
  initial: 'idle',
  states: {
    idle: {
      always: { guard: 'hasPendingTurn', target: 'receive' },
    },
    receive: {
      // The message joins history here; the save of this step is what `generate` waits for.
      entry: assign(({ context }) => startTurn(context)),
      always: [
        // Only quiet messages (group talk not addressed to the bot): kept in history, no model call.
        { guard: 'turnIsQuiet', target: 'idle', actions: assign({ turn: null }) },
        { target: 'generate' },
      ],
    },
    generate: {
      invoke: {
        src: 'generate',
        input: ({ context }) => ({
          sourceId: context.source.id,
          turnId: currentTurn(context).id,
          modelCall: currentTurn(context).modelCalls + 1,
        }),
        onDone: [
          {
            guard: {
              type: 'hasFunctionCalls',
              params: ({ event }) => ({ calls: event.output.calls.length }),
            },
            target: 'toolCall',
            actions: assign(({ context, event }) => recordModelResponse(context, event.output)),
          },
          {
            target: 'done',
            actions: [
              assign(({ context, event }) => recordModelResponse(context, event.output)),
              assign(({ context }) => ({
                turn: { ...currentTurn(context), stopReason: 'no-function-calls' as const },
              })),
            ],
          },
        ],
        onError: [
          {
            guard: 'limitReached',
            target: 'apologize',
            actions: assign(({ context }) => ({
              turn: { ...currentTurn(context), stopReason: 'limit-reached' as const },
            })),
          },
          { target: 'apologize' },
        ],
      },
    },
    toolCall: {
      initial: 'running',
      states: {
        running: {
          entry: [
            assign(({ context }) => refuseRepeatedReplies(context)),
            enqueueActions(({ context, enqueue }) => {
              const turn = currentTurn(context);
              const sender = turn.messages.at(-1)?.sender;
              turn.step.forEach(({ call, outcome }, index) => {
                if (outcome) return;
                enqueue(
                  spawnChild('executeTool', {
                    id: toolChildId(index),
                    input: { turnId: turn.id, source: context.source, call, ...(sender && { sender }) },
                  }),
                );
              });
            }),
          ],
          on: {
            'xstate.done.actor.*': {
              actions: [
                assign(({ context, event }) => recordOutcome(context, event.output)),
                stopChild(({ event }) => event.actorId),
              ],
            },
          },
          always: [
            { guard: 'stepSettledWithTexts', target: 'delivering' },
            { guard: 'stepSettled', target: 'deciding' },
          ],
        },
        delivering: {
          invoke: {
            src: 'reply',
            input: ({ context }) => deliveryRequest(context, textsToDeliver(context.turn)),
            onDone: { target: 'deciding', actions: assign(({ context }) => recordDelivery(context, true)) },
            onError: { target: 'deciding', actions: assign(({ context }) => recordDelivery(context, false)) },
          },
        },
        deciding: {
          entry: assign(({ context }) => closeStep(context)),
          always: [
            {
              guard: 'turnShouldStop',
              target: '#conversation.done',
              actions: assign(({ context }) => ({
                turn: {
                  ...currentTurn(context),
                  stopReason: turnShouldStop(currentTurn(context), context.settings),
                },
              })),
            },
            { target: '#conversation.generate' },
          ],
        },
      },
    },
    // The user is never left in silence: an apology when the model failed, a notice at a limit.
    apologize: {
      entry: assign(({ context }) => ({
        turn: {
          ...currentTurn(context),
          stopReason: currentTurn(context).stopReason ?? ('model-failed' as const),
        },
      })),
      invoke: {
        src: 'reply',
        input: ({ context }) =>
          deliveryRequest(context, [
            currentTurn(context).stopReason === 'limit-reached'
              ? context.settings.limitNotice
              : context.settings.apology,
          ]),
        onDone: 'done',
        onError: 'done',
      },
    },
    done: {
      entry: assign(({ context }) =>
        finishTurn(context, currentTurn(context).stopReason ?? 'no-function-calls'),
      ),
      always: 'idle',
    },
  },
});

export type ConversationMachine = typeof conversationMachine;

/**
 * The reply token goes with the first delivery of a turn only: LINE accepts it once. The reply
 * quotes the message it answers when `reply` asks to; by default in groups and rooms, so
 * everyone sees who is answered.
 */
function deliveryRequest(context: ConversationContext, texts: readonly string[]): DeliveryRequest {
  const turn = currentTurn(context);
  const latest = turn.messages.findLast((message) => message.replyToken) ?? turn.messages.at(-1);
  const useReplyToken = turn.deliveries === 0 && latest?.replyToken;
  const quoteAsked = turn.step.find(({ call }) => call.name === REPLY_TOOL_NAME)?.call.args.quote;
  const quote = typeof quoteAsked === 'boolean' ? quoteAsked : context.source.kind !== 'user';
  return {
    source: context.source,
    turnId: turn.id,
    index: turn.deliveries,
    texts,
    ...(useReplyToken && { replyToken: latest.replyToken, replyTokenIssuedAt: latest.timestamp }),
    ...(latest?.quoteToken && quote && { quoteToken: latest.quoteToken }),
  };
}
