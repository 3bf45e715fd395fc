import type { HistoryRecord } from './source-store.js';

// What callers pass to a store is checked the same way by every adapter: a bad key or seq is
// a bug in the caller, refused before anything is written.

/** An inbox key as its position in the source's order (keys are stringified positions). */
export function inboxPosition(key: string): number {
  const position = Number(key);
  if (!Number.isSafeInteger(position) || position < 0 || String(position) !== key) {
    throw new RangeError(`not an inbox key: ${JSON.stringify(key)}`);
  }
  return position;
}

/** The new `lastSeq`, after checking that the appended seqs continue above `lastSeq` in order. */
export function nextLastSeq(sourceId: string, lastSeq: number, appended: readonly HistoryRecord[]): number {
  let previous = lastSeq;
  for (const { seq } of appended) {
    if (!Number.isSafeInteger(seq) || seq <= previous) {
      throw new RangeError(
        `source ${sourceId}: history seq ${seq} does not continue above ${previous} (last saved ${lastSeq})`,
      );
    }
    previous = seq;
  }
  return previous;
}
