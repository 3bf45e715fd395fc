import { deflateRawSync, inflateRawSync } from 'node:zlib';

// The DynamoDB source store keeps snapshots and history as raw-deflated JSON in binary
// attributes. DynamoDB bills writes per started KB of the item, and a conversation
// snapshot repeats itself (the reply text sits in the step, its outcome and the delivery's
// input): deflate roughly halves the head and the history pages, which is what keeps a simple
// reply turn at or under 20 write units (docs/persistence.md, "WCU per turn"). JSON inside
// keeps what the string attributes gave: any nesting depth, numbers byte for byte.

/**
 * Serialises a value to JSON and deflates it (raw deflate, no header: 6 bytes less per item).
 *
 * @example
 * const bytes = compressJson({ value: 'idle' }); // Uint8Array for a `B` attribute
 */
export function compressJson(value: unknown): Uint8Array {
  return new Uint8Array(deflateRawSync(JSON.stringify(value)));
}

/** Inflates and parses what `compressJson` wrote. */
export function decompressJson<T>(bytes: Uint8Array): T {
  return JSON.parse(inflateRawSync(bytes).toString('utf8')) as T;
}
