import { isDeepStrictEqual } from 'node:util';
import type { GenerateContentResponse, Part } from '@google/genai';
import { isJsonObject, type JsonObject } from '../../domain/index.js';
import type { ModelFunctionCall, ModelResponse, TokenUsage } from '../model-port.js';

/** A Gemini answer in the port's terms; `noReplyReason` says why it carries nothing to act on. */
export interface ParsedGeminiResponse {
  readonly response: ModelResponse;
  readonly noReplyReason?: string;
}

// Finish reasons under which a candidate must not be acted on, even if it carries parts.
const BLOCKED_FINISH_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'MALFORMED_FUNCTION_CALL',
  'UNEXPECTED_TOOL_CALL',
]);

/**
 * Reads the first candidate. A blocked prompt, a blocked or empty candidate becomes a
 * response with no calls (the turn ends in silence) and a reason for the logs.
 *
 * `providerParts` keeps the candidate's parts verbatim whenever text + calls alone could
 * not rebuild them exactly: thought signatures, thought parts, provider call ids, several
 * text parts. A plain answer is stored once, not twice.
 */
export function fromGeminiResponse(raw: GenerateContentResponse): ParsedGeminiResponse {
  const usage = usageOf(raw);
  const candidate = raw.candidates?.[0];
  if (!candidate) {
    const blockReason = raw.promptFeedback?.blockReason;
    return {
      response: { calls: [], usage },
      noReplyReason: blockReason ? `prompt blocked: ${blockReason}` : 'no candidate',
    };
  }
  const finishReason = candidate.finishReason;
  if (finishReason && BLOCKED_FINISH_REASONS.has(finishReason)) {
    return { response: { calls: [], usage }, noReplyReason: `candidate finished with ${finishReason}` };
  }
  const parts = candidate.content?.parts ?? [];
  if (parts.length === 0) {
    return {
      response: { calls: [], usage },
      noReplyReason: `empty candidate (finishReason ${finishReason ?? 'none'})`,
    };
  }

  const texts = parts
    .filter((part) => typeof part.text === 'string' && !part.thought)
    .map((part) => part.text!);
  const text = texts.length > 0 ? texts.join('') : undefined;
  const calls: ModelFunctionCall[] = parts.flatMap((part) => {
    const call = part.functionCall;
    if (!call?.name) return [];
    const args: JsonObject = isJsonObject(call.args) ? call.args : {};
    return [{ name: call.name, args, ...(call.id && { id: call.id }) }];
  });
  const verbatim = parts.map((part) => JSON.parse(JSON.stringify(part)) as JsonObject);
  const rebuildable = isDeepStrictEqual(verbatim, rebuiltParts(text, calls));
  return {
    response: {
      calls,
      usage,
      ...(text !== undefined && { text }),
      ...(!rebuildable && { providerParts: verbatim }),
    },
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
