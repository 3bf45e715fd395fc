import {
  assign,
  emit,
  enqueueActions,
  fromPromise,
  setup,
  spawnChild,
  stopChild,
  type DoneActorEvent,
} from 'xstate';
import { delayInWords, REPLY_TOOL_NAME, type ToolOutcome } from '../domain/index.js';
import type { ModelResponse } from '../model/index.js';
import {
  defaultConversationSettings,
  type ConversationContext,
  type ConversationEmitted,
  type ConversationEvent,
  type ConversationInput,
  type DeliveryReceipt,
  type DeliveryRequest,
  type ExecuteToolInput,
  type GenerateInput,
  type StopReason,
} from './conversation-types.js';
import { turnShouldStop } from './stop-conditions.js';
import { LimitReachedError } from './limit-reached-error.js';
import { toldAlready } from './usage-limits.js';
import {
  allCallsSettled,
  abandonStep,
  answersMoreThanReminders,
  closeStep,
  currentTurn,
  finishTurn,
  holdBackFinalCalls,
  isInboxFullTurn,
  isQuietTurn,
  quarantinedTurn,
  recordDelivery,
  recordModelResponse,
  recordOutcome,
  refusedOutcome,
  refuseCallsNotToRun,
  remindersOfTurn,
  startTurn,
  textsToDeliver,
  unsendMessage,
} from './turn-updates.js';

/**
 * Bumped when a change makes older persisted snapshots unrestorable as they are. 2: history
 * and settings left the snapshot, queued messages and profiles left the context, usage went
 * into buckets, and side effects wait in `securing` states for their checkpoint.
 */
export const CONVERSATION_MACHINE_VERSION = 2;

/** The id under which a conversation actor registers itself, so its children can read its context. */
export const CONVERSATION_SYSTEM_ID = 'conversation';

/** States in which the conversation waits for its host to make the snapshot durable. */
export const AWAITING_CHECKPOINT_TAG = 'awaiting-checkpoint';

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
 * and tests swap them with `machine.provide`. Every side effect with an effect outside the
 * conversation (a tool that has one, a delivery) waits in a `securing` state until its host
 * has made the snapshot durable: the durable intent (docs/runtime.md, "Checkpoints").
 */
/**
 * The wait before a reply goes out: the texts to send are announced as a checkpoint, and the
 * reply is sent only once the host answers `checkpoint.done` (docs/runtime.md). Shared by the
 * tool-call delivery and the apology.
 */
const securingDelivery = {
  tags: [AWAITING_CHECKPOINT_TAG],
  entry: { type: 'announceCheckpoint', params: { reason: 'delivery' } },
  on: { 'checkpoint.done': 'sending' },
} as const;

/** Whether the checkpoint that let a reply go out was a resumed one (the host restarted). */
function resumedAfterCheckpoint(event: { type: string; resumed?: boolean }): boolean {
  return event.type === 'checkpoint.done' && event.resumed === true;
}

export const conversationMachine = setup({
  types: {
    context: {} as ConversationContext,
    events: {} as ConversationEvent | ToolSettledEvent,
    input: {} as ConversationInput,
    emitted: {} as ConversationEmitted,
  },
  actors: {
    /** One model call; reads the history from the conversation actor (its input stays small). */
    generate: fromPromise<ModelResponse, GenerateInput>(notProvided('generate')),
    /** One tool call: one child per call, so a restored step re-runs only unsettled calls. */
    executeTool: fromPromise<ToolOutcome, ExecuteToolInput>(notProvided('executeTool')),
    /** The LINE reply (or push) of this turn's text for the user. */
    reply: fromPromise<DeliveryReceipt, DeliveryRequest>(notProvided('reply')),
  },
  actions: {
    /** The turn stops for this reason once its current state is left (`done` reads it). */
    stopTurn: assign(({ context }, params: { reason: StopReason }) => ({
      turn: { ...currentTurn(context), stopReason: params.reason },
    })),
    /** An answer without calls: recorded in history, and the turn stops (`no-function-calls`). */
    recordTextAnswer: assign(({ context }, response: ModelResponse) => {
      const recorded = recordModelResponse(context, response);
      return { ...recorded, turn: { ...recorded.turn!, stopReason: 'no-function-calls' as const } };
    }),
    /**
     * The limit the turn's notice will tell of: for its messages, unless the chat was told of it
     * within its period (reminders go out whatever the limit).
     */
    holdLimitNotice: assign(({ context, event }) => {
      const error = (event as { error?: unknown }).error;
      const tell =
        LimitReachedError.isInstance(error) &&
        answersMoreThanReminders(context) &&
        !toldAlready(context.limitTold, error.notice);
      return tell ? { turn: { ...currentTurn(context), limitNotice: error.notice } } : {};
    }),
    /** A notice went out: the turn's summary then says the user was told (the inspector shows it). */
    countNotice: assign(({ context }) => ({
      turn: { ...currentTurn(context), deliveries: currentTurn(context).deliveries + 1, noticeSent: true },
      limitTold: currentTurn(context).limitNotice ?? context.limitTold,
    })),
    /**
     * A side effect's intent: the `securing` state announces that it waits and moves on when
     * the host answers `checkpoint.done`, so the snapshot the host persists is the intent. A
     * snapshot restored in such a state is answered again by its new host (`resumed: true`).
     */
    announceCheckpoint: emit(({ context }, params: { reason: 'tool' | 'delivery' }) => ({
      type: 'checkpoint.needed' as const,
      turnId: currentTurn(context).id,
      reason: params.reason,
    })),
    /**
     * A result the step had no room for was kept as its call's error (`recordOutcome`); the
     * services log it (`provideConversationServices`). `refused`: the result as the tool gave it.
     */
    resultRefused: (_, _params: { refused: ToolOutcome | undefined }) => {},
  },
  guards: {
    turnInProgress: ({ context }) => context.turn !== null,
    turnIsQuiet: ({ context }) => isQuietTurn(context.turn),
    turnIsInboxFull: ({ context }) => isInboxFullTurn(context.turn),
    limitReached: ({ event }) => LimitReachedError.isInstance((event as { error?: unknown }).error),
    /** The limit reached is one the chat was told of within its period: no second notice. */
    limitToldAlready: ({ context, event }) => {
      const error = (event as { error?: unknown }).error;
      return (
        LimitReachedError.isInstance(error) &&
        toldAlready(context.limitTold, error.notice) &&
        remindersOfTurn(context).length === 0
      );
    },
    hasFunctionCalls: (_, params: { calls: number }) => params.calls > 0,
    /** Something reached the user this turn (a tool's text; a successful `reply` ends the turn). */
    deliveredThisTurn: ({ context }) => currentTurn(context).deliveries > 0,
    /**
     * Whether a call of this step may act outside the conversation; `provideConversationServices`
     * asks the tool registry. Without it every unsettled call counts: the safe answer.
     */
    stepHasSideEffects: ({ context }) => currentTurn(context).step.some(({ outcome }) => !outcome),
    stepSettledWithTexts: ({ context }) =>
      allCallsSettled(context.turn) && textsToDeliver(context.turn).length > 0,
    stepSettled: ({ context }) => allCallsSettled(context.turn),
    turnShouldStop: ({ context }) => turnShouldStop(currentTurn(context), context.settings) !== undefined,
    outOfModelCalls: ({ context }) =>
      turnShouldStop(currentTurn(context), context.settings) === 'model-call-limit',
  },
}).createMachine({
  id: 'conversation',
  context: ({ input }) => {
    const history = input.history ?? [];
    return {
      source: input.source,
      settings: { ...defaultConversationSettings, ...input.settings },
      history,
      lastSeq: Math.max(input.lastSeq ?? 0, history.at(-1)?.seq ?? 0),
      turn: null,
      lastTurn: null,
      chat: {},
      usage: [],
    };
  },
  on: {
    // A turn outside a tool step (a model call, an apology) has nothing left open: it just ends.
    'turn.abandon': {
      guard: 'turnInProgress',
      target: '.done',
      actions: { type: 'stopTurn', params: { reason: 'abandoned' } },
    },
    // The host sends it only while idle; nothing runs, the head just says why there was no answer.
    'message.quarantined': {
      actions: assign(({ event }) => ({ lastTurn: quarantinedTurn(event) })),
    },
    // The host sends it only while idle; whatever the state, an unsend just leaves history.
    'line.unsend': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const { update, removed } = unsendMessage(context, event);
        enqueue.assign(update);
        enqueue.emit({ type: 'history.removed', seqs: removed });
      }),
    },
  },
  initial: 'idle',
  states: {
    idle: {
      // Only here: the host feeds a turn when the previous one is over (queued messages wait in
      // the store's inbox, not in this context).
      on: {
        'line.messages': {
          target: 'receive',
          actions: assign(({ context, event }) => startTurn(context, event.messages, event.at)),
        },
      },
    },
    receive: {
      entry: emit(({ context }) => ({ type: 'turn.started' as const, turnId: currentTurn(context).id })),
      always: [
        // Only quiet messages (group talk not addressed to the bot): kept in history, no model call.
        {
          guard: 'turnIsQuiet',
          target: 'idle',
          actions: [
            emit(({ context }) => ({
              type: 'turn.ended' as const,
              turnId: currentTurn(context).id,
              outcome: 'quiet' as const,
            })),
            assign({ turn: null }),
          ],
        },
        {
          guard: 'turnIsInboxFull',
          target: 'apologize',
          actions: { type: 'stopTurn', params: { reason: 'inbox-full' } },
        },
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
            actions: [
              assign(({ context, event }) => recordModelResponse(context, event.output)),
              assign(({ context }) => refuseCallsNotToRun(context)),
            ],
          },
          {
            // Text and no call once something reached the user this turn: what was said stands.
            guard: 'deliveredThisTurn',
            target: 'done',
            actions: { type: 'recordTextAnswer', params: ({ event }) => event.output },
          },
          {
            // Text and no call, and nothing sent (no `reply` yet, or one refused or undelivered):
            // whatever the model adapter, never silence.
            target: 'apologize',
            actions: { type: 'recordTextAnswer', params: ({ event }) => event.output },
          },
        ],
        onError: [
          {
            // Told once per period; its messages stay in history as context for the next answer.
            guard: 'limitToldAlready',
            target: 'done',
            actions: { type: 'stopTurn', params: { reason: 'limit-reached' } },
          },
          {
            guard: 'limitReached',
            target: 'apologize',
            actions: [{ type: 'stopTurn', params: { reason: 'limit-reached' } }, 'holdLimitNotice'],
          },
          { target: 'apologize' },
        ],
      },
    },
    toolCall: {
      on: {
        // The step's model entry is in history: its calls get their (error) answers first.
        'turn.abandon': {
          target: '#conversation.done',
          actions: [
            assign(({ context }) => abandonStep(context)),
            assign(({ context }) => closeStep(context)),
            { type: 'stopTurn', params: { reason: 'abandoned' } },
          ],
        },
      },
      initial: 'starting',
      states: {
        starting: {
          always: [{ guard: 'stepHasSideEffects', target: 'securing' }, { target: 'running' }],
        },
        // A tool that acts outside the conversation runs only once its call is durable.
        securing: {
          tags: [AWAITING_CHECKPOINT_TAG],
          entry: { type: 'announceCheckpoint', params: { reason: 'tool' } },
          on: { 'checkpoint.done': 'running' },
        },
        running: {
          entry: enqueueActions(({ context, event, enqueue }) => {
            const turn = currentTurn(context);
            const sender = turn.messages.at(-1)?.sender;
            const resumed = resumedAfterCheckpoint(event);
            turn.step.forEach(({ call, outcome }, index) => {
              if (outcome) return;
              enqueue(
                spawnChild('executeTool', {
                  id: toolChildId(index),
                  input: {
                    turnId: turn.id,
                    source: context.source,
                    call,
                    ...(sender && { sender }),
                    ...(resumed && { resumed }),
                  },
                }),
              );
            });
          }),
          on: {
            'xstate.done.actor.*': {
              actions: [
                assign(({ context, event }) => recordOutcome(context, event.output)),
                stopChild(({ event }) => event.actorId),
                {
                  type: 'resultRefused',
                  params: ({ context, event }) => ({ refused: refusedOutcome(context.turn, event.output) }),
                },
                assign(({ context }) => holdBackFinalCalls(context)),
              ],
            },
          },
          always: [
            { guard: 'stepSettledWithTexts', target: 'delivering' },
            { guard: 'stepSettled', target: 'deciding' },
          ],
        },
        delivering: {
          initial: 'securing',
          states: {
            // The intent: the texts to send are in the step's outcomes, durable before sending.
            securing: securingDelivery,
            sending: {
              invoke: {
                src: 'reply',
                input: ({ context, event }) => ({
                  ...deliveryRequest(context, textsToDeliver(context.turn)),
                  resumed: resumedAfterCheckpoint(event),
                }),
                onDone: {
                  target: '#conversation.toolCall.deciding',
                  actions: assign(({ context, event }) =>
                    recordDelivery(context, true, event.output.sentMessageIds),
                  ),
                },
                onError: {
                  target: '#conversation.toolCall.deciding',
                  actions: assign(({ context }) => recordDelivery(context, false)),
                },
              },
            },
          },
        },
        deciding: {
          entry: assign(({ context }) => closeStep(context)),
          always: [
            {
              // Out of model calls before `reply` or `skip`: the user gets the apology, not silence.
              guard: 'outOfModelCalls',
              target: '#conversation.apologize',
              actions: { type: 'stopTurn', params: { reason: 'model-call-limit' } },
            },
            {
              guard: 'turnShouldStop',
              target: '#conversation.done',
              actions: {
                type: 'stopTurn',
                // The guard just found a reason.
                params: ({ context }) => ({
                  reason: turnShouldStop(currentTurn(context), context.settings)!,
                }),
              },
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
      initial: 'securing',
      states: {
        securing: securingDelivery,
        sending: {
          invoke: {
            src: 'reply',
            input: ({ context, event }) => ({
              ...deliveryRequest(context, noticesFor(context)),
              resumed: resumedAfterCheckpoint(event),
            }),
            onDone: { target: '#conversation.done', actions: 'countNotice' },
            onError: '#conversation.done',
          },
        },
      },
    },
    done: {
      entry: [
        emit(({ context }) => ({
          type: 'turn.ended' as const,
          turnId: currentTurn(context).id,
          outcome: currentTurn(context).stopReason ?? ('no-function-calls' as const),
        })),
        assign(({ context }) => finishTurn(context, currentTurn(context).stopReason ?? 'no-function-calls')),
      ],
      always: 'idle',
    },
  },
});

export type ConversationMachine = typeof conversationMachine;

/**
 * What the user is told when a turn ends without the model's answer. A reminder due is the bot's
 * own errand: it goes out as its own text, without the model; the messages beside it, if any,
 * get the notice of why there is no answer.
 */
function noticesFor(context: ConversationContext): string[] {
  const turn = currentTurn(context);
  const reminders = remindersOfTurn(context);
  // At a limit the chat is told once per period (`limitNotice` says whether now).
  const noticeNeeded =
    turn.stopReason === 'limit-reached'
      ? turn.limitNotice !== undefined
      : answersMoreThanReminders(context) || reminders.length === 0;
  return [
    ...reminders.map(
      ({ text, lateBy }) =>
        `⏰ ${text}${lateBy === undefined ? '' : ` (late: it was due ${delayInWords(lateBy)} ago)`}`,
    ),
    ...(noticeNeeded ? [noticeOf(context)] : []),
  ];
}

function noticeOf(context: ConversationContext): string {
  switch (currentTurn(context).stopReason) {
    case 'limit-reached':
      return context.settings.limitNotice;
    case 'inbox-full':
      return context.settings.inboxFullNotice;
    default:
      return context.settings.apology;
  }
}

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
    attempt: (turn.slotFailures ?? 0) + 1,
    turnStartedAt: turn.startedAt,
    texts,
    ...(useReplyToken && { replyToken: latest.replyToken, replyTokenIssuedAt: latest.timestamp }),
    ...(latest?.quoteToken && quote && { quoteToken: latest.quoteToken }),
  };
}
