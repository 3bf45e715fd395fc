import type { ThinkingConfig } from '@google/genai';
import { REPLY_TOOL_NAME, SKIP_TOOL_NAME } from '../../domain/index.js';
import type { ModelRequest } from '../model-port.js';
import { lessThinking } from './gemini-generation-config.js';
import type { GeminiModelOptions } from './gemini-options.js';
import type { AnswerVerdict } from './gemini-response.js';

/** How the next call differs from the first, after a non-answer (docs/model.md, "Finish reasons"). */
export interface AnswerPlan {
  /** Less thinking than configured (after `MAX_TOKENS` without a call). */
  readonly thinking?: ThinkingConfig;
  /** Function calling mode `ANY`, limited to these tools (after text without a call). */
  readonly onlyCall?: readonly string[];
}

/**
 * What to change for one more try after `verdict`, or `undefined` when nothing could help: a
 * malformed call is asked again as it was (usually transient), running out of tokens with less
 * thinking, text without a call for `reply` or `skip` only; a refusal would end the same way.
 */
export function retryPlan(
  verdict: AnswerVerdict,
  request: ModelRequest,
  model: string,
  options: GeminiModelOptions,
): AnswerPlan | undefined {
  switch (verdict) {
    case 'malformed-call':
      return {};
    case 'out-of-tokens': {
      const thinking = lessThinking(model, options);
      return thinking && { thinking };
    }
    case 'no-call':
      return { onlyCall: finalToolsOf(request) };
    default:
      return undefined;
  }
}

/**
 * Whether an answer without a call would leave the user in silence: `reply` or `skip` is on
 * offer and the model has called neither since the last user message.
 */
export function mustEndWithFinalTool(request: ModelRequest): boolean {
  const finalTools = finalToolsOf(request);
  if (finalTools.length === 0) return false;
  const lastUser = request.history.findLastIndex((entry) => entry.role === 'user');
  return !request.history
    .slice(lastUser + 1)
    .some((entry) => entry.role === 'model' && entry.calls.some((call) => finalTools.includes(call.name)));
}

/** The tools that end a turn (`reply`, `skip`) among those offered at this step. */
function finalToolsOf(request: ModelRequest): string[] {
  const offered = new Set(request.tools.map((tool) => tool.name));
  return [REPLY_TOOL_NAME, SKIP_TOOL_NAME].filter((name) => offered.has(name));
}
