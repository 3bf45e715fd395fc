import { REPLY_TOOL_NAME, SKIP_TOOL_NAME } from '../domain/index.js';
import type { ConversationSettings, StopReason, Turn } from './conversation-types.js';

/** A rule that may end a turn after a step; the first that answers wins. */
export type StopCondition = (turn: Turn, settings: ConversationSettings) => StopReason | undefined;

export const noFunctionCalls: StopCondition = (turn) =>
  turn.step.length === 0 ? 'no-function-calls' : undefined;

/** A final tool ended the turn once it ran successfully; a refused call does not count. */
export const finalToolRan =
  (...names: string[]): StopCondition =>
  (turn) =>
    turn.step.some(({ call, outcome }) => names.includes(call.name) && outcome && !outcome.isError)
      ? 'final-tool'
      : undefined;

export const modelCallLimit: StopCondition = (turn, settings) =>
  turn.modelCalls >= settings.maxModelCalls ? 'model-call-limit' : undefined;

export const anyOf =
  (...conditions: StopCondition[]): StopCondition =>
  (turn, settings) => {
    for (const condition of conditions) {
      const reason = condition(turn, settings);
      if (reason) return reason;
    }
    return undefined;
  };

/** kaiwa's rule: stop without calls, after `reply` or `skip`, or at the model-call limit. */
export const turnShouldStop: StopCondition = anyOf(
  noFunctionCalls,
  finalToolRan(REPLY_TOOL_NAME, SKIP_TOOL_NAME),
  modelCallLimit,
);
