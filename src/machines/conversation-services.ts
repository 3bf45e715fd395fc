import { fromPromise, type ActorSystem, type ActorSystemInfo } from 'xstate';

type AnyActorSystem = ActorSystem<ActorSystemInfo>;
import { outcomeBytes, type Attachment, type Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { MediaPart, ModelPort } from '../model/index.js';
import type { ToolRegistry } from '../tools/index.js';
import {
  CONVERSATION_SYSTEM_ID,
  conversationMachine,
  type ConversationMachine,
} from './conversation-machine.js';
import type {
  ConversationContext,
  DeliveryReceipt,
  DeliveryRequest,
  ExecuteToolInput,
  GenerateInput,
} from './conversation-types.js';
import { LimitReachedError } from './limit-reached-error.js';
import { limitNoticeAt, limitReached, toldAlready } from './usage-limits.js';
import { offeredToolsFields, stepRequest, type StepPromptPort } from './tool-step.js';

/** Sends text to a LINE source: the LINE adapter implements it. */
export interface DeliveryPort {
  deliver(request: DeliveryRequest, signal: AbortSignal): Promise<DeliveryReceipt>;
}

/**
 * Media bytes for the model: LINE's content API implements it. It is asked for images and voice
 * messages (`attachment.kind` `image` or `audio`); the model adapter decides which types its
 * model takes and tells the model about the others.
 */
export interface MediaPort {
  /** Undefined when the content is gone, too large or of a kind it does not load; never throws. */
  load(attachment: Attachment, signal: AbortSignal): Promise<{ mimeType: string; data: string } | undefined>;
}

/** What the conversation's actors need from the outside world. */
export interface ConversationServices {
  readonly model: ModelPort;
  readonly tools: ToolRegistry;
  readonly delivery: DeliveryPort;
  /** The system prompt; the registry's tool section is part of it. */
  readonly systemInstruction: () => string;
  /** Per-step tool selection; when absent every step gets `systemInstruction` and every tool. */
  readonly stepPrompt?: StepPromptPort;
  /** Loads the media of the turn's messages (images, voice) for the model; absent media is skipped. */
  readonly media?: MediaPort;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The conversation actor's own context, read by its children (their inputs stay small). */
export function conversationContextOf(system: AnyActorSystem): ConversationContext {
  const conversation = system.get(CONVERSATION_SYSTEM_ID);
  if (!conversation) throw new Error(`no actor registered as "${CONVERSATION_SYSTEM_ID}"`);
  return (conversation.getSnapshot() as { context: ConversationContext }).context;
}

/**
 * The conversation machine with its real side effects. The host still answers its
 * `checkpoint.needed` announcements (docs/runtime.md); nothing here waits for the store.
 */
export function provideConversationServices(
  services: ConversationServices,
  machine: ConversationMachine = conversationMachine,
): ConversationMachine {
  return machine.provide({
    actions: {
      resultRefused: ({ context }, { refused }) => {
        if (!refused) return;
        services.logger.warn('tool result not kept: the step holds too much already', {
          sourceId: context.source.id,
          turnId: context.turn?.id,
          tool: refused.name,
          callId: refused.callId,
          bytes: outcomeBytes(refused),
        });
      },
    },
    guards: {
      // Pure tools (reply, skip, weather, time, …) run at once, the others after their checkpoint;
      // an unknown tool only answers with an error.
      stepHasSideEffects: ({ context }) =>
        (context.turn?.step ?? []).some(({ call, outcome }) => {
          const tool = services.tools.get(call.name);
          return !outcome && tool !== undefined && tool.sideEffects !== false;
        }),
    },
    actors: {
      generate: fromPromise(
        async ({
          input,
          system,
          signal,
        }: {
          input: GenerateInput;
          system: AnyActorSystem;
          signal: AbortSignal;
        }) => {
          const context = conversationContextOf(system);
          const logger = services.logger.child({ sourceId: context.source.id, turnId: input.turnId });
          const startedAt = services.clock.now();
          const limit = limitReached(context, startedAt);
          if (limit) {
            const notice = limitNoticeAt(limit, startedAt);
            logger.warn(
              toldAlready(context.limitTold, notice)
                ? 'limit reached: the turn ends quietly (the user was told of it)'
                : 'limit reached: the user gets a notice instead of an answer',
              { limit },
            );
            throw new LimitReachedError(limit, context.source.id, notice);
          }
          try {
            // Fixed when the turn started and persisted with it: a resumed turn keeps it.
            const deadline = context.turn?.deadlineAt;
            const media = await mediaOfTurn(context, services.media, signal);
            const step = stepRequest(services, context, input.turnId);
            if (step.selection)
              logger.info('tools offered', offeredToolsFields(step.selection, input.modelCall));
            const response = await services.model.generate({
              ...step.request,
              history: context.history,
              signal,
              ...(deadline !== undefined && { deadline }),
              ...(media.length > 0 && { media }),
            });
            logger.info('model call', {
              model: services.model.name,
              modelCall: input.modelCall,
              durationMs: services.clock.now() - startedAt,
              functionCalls: response.calls.map((call) => call.name),
              ...response.usage,
            });
            return response;
          } catch (error) {
            // Stopped with its turn (the source taken over, the process stopping): not a failure.
            if (signal.aborted) {
              logger.debug('model call stopped with its turn', { modelCall: input.modelCall });
              throw error;
            }
            logger.error('model call failed', {
              model: services.model.name,
              modelCall: input.modelCall,
              error,
            });
            throw error;
          }
        },
      ),
      executeTool: fromPromise<Awaited<ReturnType<ToolRegistry['execute']>>, ExecuteToolInput>(
        ({ input, signal }) =>
          services.tools.execute(input.call, {
            source: input.source,
            turnId: input.turnId,
            signal,
            clock: services.clock,
            ...(input.sender && { sender: input.sender }),
            ...(input.resumed && { resumed: true }),
          }),
      ),
      reply: fromPromise<DeliveryReceipt, DeliveryRequest>(async ({ input, signal }) => {
        // The machine invokes this only after its intent is durable; a conversation stopped since
        // (its host lost the source) must not send.
        signal.throwIfAborted();
        try {
          return await services.delivery.deliver(input, signal);
        } catch (error) {
          if (signal.aborted) {
            services.logger.debug('delivery stopped with its turn', {
              sourceId: input.source.id,
              turnId: input.turnId,
            });
            throw error;
          }
          services.logger.error('delivery failed', {
            sourceId: input.source.id,
            turnId: input.turnId,
            index: input.index,
            error,
          });
          throw error;
        }
      }),
    },
  });
}

/** The images and voice messages of the turn's own messages, for the model; older turns keep only their description. */
async function mediaOfTurn(
  context: ConversationContext,
  media: MediaPort | undefined,
  signal: AbortSignal,
): Promise<MediaPart[]> {
  if (!media || !context.turn) return [];
  const parts = await Promise.all(
    context.turn.messages.map(async (message) => {
      const { attachment } = message;
      const kind = attachment?.kind;
      if (!attachment || (kind !== 'image' && kind !== 'audio')) return undefined;
      const loaded = await media.load(attachment, signal);
      return loaded && { eventId: message.eventId, kind, ...loaded };
    }),
  );
  return parts.filter((part) => part !== undefined);
}
