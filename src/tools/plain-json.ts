import {
  exceedsBounds,
  isJsonObject,
  isJsonValue,
  type JsonBounds,
  type JsonObject,
} from '../domain/index.js';

// Deeper than any result a model reads; a circular value reaches it too, before anything
// recurses over it.
const RESULT_BOUNDS: JsonBounds = { maxDepth: 64, maxStringLength: Infinity, maxValues: Infinity };

/**
 * Whether a tool's result for the model (or what its background work resolved to) is a value
 * history can keep: a plain JSON object, no class instance, `BigInt` or cycle in it.
 */
export function isPlainJsonObject(value: unknown): value is JsonObject {
  return isJsonObject(value) && !exceedsBounds(value, RESULT_BOUNDS) && isJsonValue(value);
}
