import type { HistoryEntry } from '../domain/index.js';

/** How much history a conversation keeps. Both limits hold after `boundHistory`. */
export interface HistoryLimits {
  /** Entries (user, model and tool entries all count). */
  readonly maxEntries: number;
  /** UTF-8 bytes of the history serialised as a JSON array. */
  readonly maxBytes: number;
}

/**
 * Suggested limits: about 60 exchanges of context for the model, and at most 128 KiB of
 * history. History lives in memory and in entries of their own in the store; these bounds
 * apply in memory and when a conversation is loaded (the store returns the newest window),
 * so what a turn sends the model stays bounded however long the conversation grows.
 */
export const defaultHistoryLimits: HistoryLimits = { maxEntries: 200, maxBytes: 128 * 1024 };

/**
 * Drops the oldest whole exchanges until both limits hold. An exchange starts at a user
 * entry, so the kept history always starts with one; a cut never falls between a model
 * entry's function calls and the tool entry answering them, nor after calls still
 * unanswered (a turn in progress). The newest exchange is never dropped, even when it alone
 * exceeds a limit: it holds the message being answered. Pure: returns a new array.
 *
 * @example
 * context.history = boundHistory([...context.history, entry], defaultHistoryLimits);
 */
export function boundHistory<Entry extends HistoryEntry>(
  history: readonly Entry[],
  limits: HistoryLimits,
): Entry[] {
  const sizes = history.map(entrySize);
  // bytesFrom[i]: the JSON array of history[i..] — brackets, entries and the commas between.
  const bytesFrom = new Array<number>(history.length + 1).fill(2);
  for (let index = history.length - 1; index >= 0; index--) {
    bytesFrom[index] = bytesFrom[index + 1]! + sizes[index]! + (index < history.length - 1 ? 1 : 0);
  }
  const fits = (start: number) =>
    history.length - start <= limits.maxEntries && bytesFrom[start]! <= limits.maxBytes;

  if (fits(0)) return [...history];
  const cuts = exchangeStarts(history);
  const firstFitting = cuts.find(fits);
  const start = firstFitting ?? cuts.at(-1);
  return start === undefined ? [...history] : history.slice(start);
}

/**
 * Indexes where an exchange starts and history may be cut: a user entry, with every function
 * call made before it already answered before it.
 */
function exchangeStarts(history: readonly HistoryEntry[]): number[] {
  // For each model entry with calls, where its last call is answered (Infinity while one is
  // open): no cut may fall after the model entry and up to that answer.
  const ownerOfCall = new Map<string, number>();
  const openCalls = new Map<number, number>();
  const settledAt = new Map<number, number>();
  history.forEach((entry, index) => {
    if (entry.role === 'model' && entry.calls.length > 0) {
      const callIds = new Set(entry.calls.map((call) => call.id));
      openCalls.set(index, callIds.size);
      settledAt.set(index, Infinity);
      for (const callId of callIds) ownerOfCall.set(callId, index);
    } else if (entry.role === 'tool') {
      for (const result of entry.results) {
        const owner = ownerOfCall.get(result.callId);
        if (owner === undefined) continue;
        ownerOfCall.delete(result.callId);
        const open = openCalls.get(owner)! - 1;
        openCalls.set(owner, open);
        if (open === 0) settledAt.set(owner, index);
      }
    }
  });

  const starts: number[] = [];
  let blockedUntil = -1;
  for (let index = 1; index < history.length; index++) {
    blockedUntil = Math.max(blockedUntil, settledAt.get(index - 1) ?? -1);
    if (history[index]!.role === 'user' && blockedUntil < index) starts.push(index);
  }
  return starts;
}

/** UTF-8 length without encoding: JSON.stringify leaves no lone surrogates, pairs count 4. */
function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

// Entries are immutable and keep their identity from step to step: each is measured once.
const measured = new WeakMap<HistoryEntry, number>();

function entrySize(entry: HistoryEntry): number {
  let size = measured.get(entry);
  if (size === undefined) {
    size = utf8ByteLength(JSON.stringify(entry));
    measured.set(entry, size);
  }
  return size;
}
