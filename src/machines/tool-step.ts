import type { LogFields } from '../logging/index.js';
import type { ModelRequest, ToolDeclaration } from '../model/index.js';
import type { ToolRegistry } from '../tools/index.js';
import { describeReason, type SelectionContext, type ToolSelection } from '../tools/selection/index.js';
import type { ConversationContext } from './conversation-types.js';

/** What one model call gets when tools are selected per step. */
export interface PreparedStep {
  /** Persona, required tools and rules: the same at every step until the registry changes. */
  readonly systemInstruction: string;
  /** The per-step part (which optional tools fit now, with detail). */
  readonly stepGuidance?: string;
  /** The declarations offered at this step. */
  readonly tools: readonly ToolDeclaration[];
  /** Every declaration: what a context cache holds. */
  readonly allTools: readonly ToolDeclaration[];
  /** What was offered and why, for the logs. */
  readonly selection: ToolSelection;
}

/** Selects the tools and builds the prompt of one model step (the prompt module's `StepPrompt`). */
export interface StepPromptPort {
  forStep(context: SelectionContext): PreparedStep;
}

/** The prompt part of a model request, and the selection behind it when there is one. */
export interface StepRequest {
  readonly request: Pick<ModelRequest, 'systemInstruction' | 'tools' | 'allTools' | 'stepGuidance'>;
  readonly selection?: ToolSelection;
}

/**
 * The prompt and declarations of this step: selected from the conversation context alone
 * (recent user messages, source kind, recent tool calls, this turn's tool finder results),
 * so a restored turn gets the same; without a step prompt, every tool and the fixed prompt.
 */
export function stepRequest(
  services: {
    readonly stepPrompt?: StepPromptPort;
    readonly systemInstruction: () => string;
    readonly tools: ToolRegistry;
  },
  context: ConversationContext,
  turnId: string,
): StepRequest {
  if (!services.stepPrompt) {
    return {
      request: { systemInstruction: services.systemInstruction(), tools: services.tools.declarations() },
    };
  }
  const { selection, ...request } = services.stepPrompt.forStep({
    sourceKind: context.source.kind,
    history: context.history,
    turnId,
    currentEventIds: context.turn?.messages.map((message) => message.eventId) ?? [],
  });
  return { request, selection };
}

/**
 * Log fields saying which tools a model call was offered and why: tool names and the
 * tools' own keywords, never the user's words.
 * @example
 * logger.info('tools offered', offeredToolsFields(selection, 1));
 * // { modelCall: 1, offered: ['find_tools', 'get_weather', 'reply'], reasons: { get_weather: ['keyword "weather" in the current message'] }, withheld: [...] }
 */
export function offeredToolsFields(selection: ToolSelection, modelCall: number): LogFields {
  const reasons = Object.fromEntries(
    selection.offered
      .filter((tool) => !tool.reasons.every((reason) => reason.kind === 'required'))
      .map((tool) => [tool.name, tool.reasons.map(describeReason)]),
  );
  return {
    modelCall,
    offered: selection.offered.map((tool) => tool.name),
    reasons,
    withheld: selection.withheld,
  };
}
