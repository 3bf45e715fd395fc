import { isDeepStrictEqual } from 'node:util';
import type { GenerateContentResponse, Part } from '@google/genai';
import {
  exceedsBounds,
  isJsonObject,
  wellFormed,
  type JsonBounds,
  type JsonObject,
} from '../../domain/index.js';
import type { ModelFunctionCall, ModelResponse, TokenUsage } from '../model-port.js';
import { belongsInModelTurn, compactParts } from './gemini-provider-parts.js';

/**
 * What to do with one answer (docs/model.md, "Finish reasons"):
 * - `act`: it carries function calls;
 * - `no-call`: it ended normally (`STOP`) with text or nothing, but no call;
 * - `malformed-call`: `MALFORMED_FUNCTION_CALL` or `UNEXPECTED_TOOL_CALL`, usually transient, or
 *   a call kaiwa could neither run nor send back (no name, arguments that are no object or
 *   nested past any tool's parameters);
 * - `out-of-tokens`: `MAX_TOKENS` without a call (thinking used the output budget);
 * - `refused`: blocked, stopped for safety and the like, `TOO_MANY_TOOL_CALLS`, `OTHER`, or a
 *   finish reason kaiwa does not know — the same request would end the same way.
 */
export type AnswerVerdict = 'act' | 'no-call' | 'malformed-call' | 'out-of-tokens' | 'refused';

/** A Gemini answer in the port's terms, and what to do with it. */
export interface GeminiAnswer {
  readonly verdict: AnswerVerdict;
  /** Its calls, text and usage; nothing to act on unless `verdict` is `act` (or `no-call`). */
  readonly response: ModelResponse;
  readonly finishReason?: string;
  /** Set when the prompt itself was blocked (no candidate at all). */
  readonly blockReason?: string;
  /** What made a call of a normally ended answer unusable (`malformed-call`). */
  readonly unusableCall?: string;
}

// An answer that ends normally; `FINISH_REASON_UNSPECIFIED` counts as one (no reason given).
const NORMAL_ENDS = new Set(['STOP', 'FINISH_REASON_UNSPECIFIED']);
const MALFORMED_CALLS = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL']);

/**
 * Reads the first candidate and judges it. Calls are acted on whatever the finish reason, unless
 * it says the answer must not be used (safety, recitation, `TOO_MANY_TOOL_CALLS`, `OTHER`…).
 *
 * `providerParts` keeps what text + calls alone could not rebuild — thought signatures, thought
 * parts, provider call ids, several text parts — and nothing they already hold: the text and
 * the arguments are stored once (see `gemini-provider-parts`). A plain answer has none.
 */
export function readGeminiAnswer(raw: GenerateContentResponse): GeminiAnswer {
  const usage = usageOf(raw);
  const candidate = raw.candidates?.[0];
  if (!candidate) {
    const blockReason = raw.promptFeedback?.blockReason;
    return { verdict: 'refused', response: { calls: [], usage }, ...(blockReason && { blockReason }) };
  }
  const finishReason = candidate.finishReason ?? 'FINISH_REASON_UNSPECIFIED';
  // What Gemini would refuse back is never stored: every later request of the chat would carry
  // it. A part without data or a function response is left out; a call without a name or usable
  // arguments makes the answer a malformed call (asked again), never acted on.
  const parts = (candidate.content?.parts ?? []).filter(belongsInModelTurn);
  const unusableCall = parts.map(unusableCallIn).find((problem) => problem !== undefined);
  if (unusableCall !== undefined && isNormalEnd(finishReason)) {
    return { verdict: 'malformed-call', response: { calls: [], usage }, finishReason, unusableCall };
  }
  const response = responseOf(parts, usage);
  return { verdict: verdictOf(finishReason, response), response, finishReason };
}

function verdictOf(finishReason: string, response: ModelResponse): AnswerVerdict {
  if (MALFORMED_CALLS.has(finishReason)) return 'malformed-call';
  if (!isNormalEnd(finishReason)) return 'refused';
  if (response.calls.length > 0) return 'act';
  return finishReason === 'MAX_TOKENS' ? 'out-of-tokens' : 'no-call';
}

function isNormalEnd(finishReason: string): boolean {
  return NORMAL_ENDS.has(finishReason) || finishReason === 'MAX_TOKENS';
}

// Tools take shallow arguments; the bounds stop what none takes before anything recurses over it
// (a comparison of 2,000 levels overflows the stack). Strings and counts are bounded by the
// model's output tokens.
const ARGUMENT_BOUNDS: JsonBounds = { maxDepth: 32, maxStringLength: Infinity, maxValues: Infinity };

/** Why a function call part could be neither run nor sent back, or undefined when it can. */
function unusableCallIn(part: Part): string | undefined {
  const call = part.functionCall;
  if (call === undefined || call === null) return undefined;
  if (typeof call.name !== 'string' || call.name === '') return 'a function call without a name';
  if (call.args === undefined) return undefined;
  if (!isJsonObject(call.args)) return `arguments of ${call.name} that are no object`;
  const beyond = exceedsBounds(call.args, ARGUMENT_BOUNDS);
  return beyond && `arguments of ${call.name} nested deeper than ${ARGUMENT_BOUNDS.maxDepth} levels`;
}

function responseOf(answered: readonly Part[], usage: TokenUsage): ModelResponse {
  // Half an emoji would go back with every later request of the chat (docs/security.md).
  const parts = wellFormed(answered);
  const texts = parts
    .filter((part) => typeof part.text === 'string' && !part.thought)
    .map((part) => part.text!);
  const text = texts.length > 0 ? texts.join('') : undefined;
  // Every call is usable here (`unusableCallIn`): a name, arguments that are an object or none.
  const calls: ModelFunctionCall[] = parts.flatMap((part) => {
    const call = part.functionCall;
    if (!call?.name) return [];
    const args: JsonObject = isJsonObject(call.args) ? call.args : {};
    return [{ name: call.name, args, ...(call.id && { id: call.id }) }];
  });
  const verbatim = parts.map((part) => JSON.parse(JSON.stringify(part)) as JsonObject);
  const rebuildable = isDeepStrictEqual(verbatim, rebuiltParts(text, calls));
  return {
    calls,
    usage,
    ...(text !== undefined && { text }),
    ...(!rebuildable && { providerParts: compactParts(verbatim, text, calls) }),
  };
}

/** What `gemini-contents` sends for a model entry without provider parts. */
function rebuiltParts(text: string | undefined, calls: readonly ModelFunctionCall[]): Part[] {
  return [
    ...(text ? [{ text }] : []),
    ...calls.map((call) => ({ functionCall: { name: call.name, args: call.args } })),
  ];
}

/**
 * Output counts the thinking tokens too: they are billed as output and belong in any
 * token budget.
 */
function usageOf(raw: GenerateContentResponse): TokenUsage {
  const metadata = raw.usageMetadata;
  return {
    promptTokens: metadata?.promptTokenCount ?? 0,
    outputTokens: (metadata?.candidatesTokenCount ?? 0) + (metadata?.thoughtsTokenCount ?? 0),
    cachedTokens: metadata?.cachedContentTokenCount ?? 0,
  };
}

/** Both calls' tokens: a retried answer costs what both attempts used. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
  };
}
