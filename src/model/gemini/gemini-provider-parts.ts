import { isDeepStrictEqual } from 'node:util';
import type { Part } from '@google/genai';
import { isJsonObject, type JsonObject, type ModelEntry } from '../../domain/index.js';

// A model entry keeps its text and calls once (docs/model.md, "Provider parts"). Its provider
// parts hold what those cannot rebuild — thought signatures, Gemini's call ids, thought parts,
// the order of the parts — and refer to the rest:
// - a function call part without `args` takes the arguments of the entry's call at the same
//   position (the n-th named function call part ↔ `calls[n]`);
// - a text part whose `text` is `null` is the entry's `text` (only when there is one such part).
// Entries stored before carry the arguments and the text in full; they replay as they are, and
// `compactProviderParts` migrates them.

/** The parts of one answer, without what `text` and `calls` already hold. */
export function compactParts(
  parts: readonly JsonObject[],
  text: string | undefined,
  calls: readonly { readonly args: JsonObject }[],
): JsonObject[] {
  const textParts = parts.filter(isAnswerText);
  let callIndex = 0;
  return parts.map((part) => {
    const call = namedCall(part);
    if (call) {
      const own = calls[callIndex++];
      if (own && isDeepStrictEqual(call.args ?? {}, own.args)) {
        const { args: _args, ...withoutArgs } = call;
        return { ...part, functionCall: withoutArgs };
      }
      return part;
    }
    if (textParts.length === 1 && isAnswerText(part) && part.text === text) return { ...part, text: null };
    return part;
  });
}

// A part is a oneof: one of these holds its data (a thought signature alone is none).
const PART_DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
] as const satisfies readonly (keyof Part)[];

/**
 * Whether Gemini would take the part back in a model turn: it carries data (`{}` or a signature
 * alone do not) and is no function response (those belong to the user turn after the calls).
 */
export function belongsInModelTurn(part: Part): boolean {
  const data = PART_DATA_FIELDS.some((field) => part[field] !== undefined && part[field] !== null);
  return data && part.functionResponse === undefined;
}

/**
 * The entry's provider parts as Gemini sent them, the text and arguments put back, without what
 * Gemini would refuse (see `belongsInModelTurn`) or a call without a name: entries stored before
 * kaiwa left these out may hold them (such a call was never answered).
 */
export function expandProviderParts(entry: ModelEntry): Part[] {
  let callIndex = 0;
  return (entry.providerParts ?? [])
    .map((stored) => {
      const part = structuredClone(stored);
      const call = namedCall(part);
      if (call) {
        const own = entry.calls[callIndex++];
        if (!('args' in call) && own) part.functionCall = { ...call, args: structuredClone(own.args) };
      }
      if (part.text === null) part.text = entry.text ?? '';
      return part;
    })
    .filter(
      (part: Part) => belongsInModelTurn(part) && (!part.functionCall || Boolean(part.functionCall.name)),
    );
}

/**
 * Migrates an entry stored with its provider parts in full (text and arguments twice) to the
 * compact shape; an entry already compact, or without provider parts, comes back unchanged.
 * @example
 * history = history.map((entry) => (entry.role === 'model' ? compactProviderParts(entry) : entry));
 */
export function compactProviderParts(entry: ModelEntry): ModelEntry {
  if (!entry.providerParts) return entry;
  return { ...entry, providerParts: compactParts(entry.providerParts, entry.text, entry.calls) };
}

function namedCall(part: JsonObject): JsonObject | undefined {
  const call = part.functionCall;
  return isJsonObject(call) && typeof call.name === 'string' ? call : undefined;
}

/** A text part of the answer itself (thought summaries are not in the entry's text). */
function isAnswerText(part: JsonObject): boolean {
  return typeof part.text === 'string' && part.thought !== true;
}
