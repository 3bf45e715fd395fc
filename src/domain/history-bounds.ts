import { defaults } from '../defaults/index.js';
import type { HistoryEntry } from './history.js';

/** How much history a conversation keeps. Both limits hold after `boundHistory`. */
export interface HistoryLimits {
  /** Entries (user, model and tool entries all count). */
  readonly maxEntries: number;
  /** UTF-8 bytes of the history serialised as a JSON array. */
  readonly maxBytes: number;
}

/**
 * Suggested limits: about 60 exchanges of context for the model, and at most 128 KiB of
 * history. Loading a source reads this window from the store (docs/persistence.md), so the
 * byte limit is also what an actor costs to load.
 */
export const defaultHistoryLimits: HistoryLimits = {
  maxEntries: defaults.conversation.maxHistoryEntries,
  maxBytes: defaults.conversation.maxHistoryBytes,
};

/**
 * What one step's results may hold in all (UTF-8 bytes, as `outcomeBytes` counts them). A step's
 * results become one history entry, which a store keeps whole: in one DynamoDB item (350 KB),
 * whatever the text compresses to. Sixteen calls of 32 KB each would not fit.
 */
export const MAX_STEP_RESULT_BYTES = 256 * 1024;

/** What an outcome adds to the turn's checkpoint: its response as JSON and its text for the user. */
export function outcomeBytes(outcome: {
  readonly response: unknown;
  readonly forUser?: string | undefined;
}): number {
  return (
    Buffer.byteLength(JSON.stringify(outcome.response), 'utf8') +
    (outcome.forUser === undefined ? 0 : Buffer.byteLength(outcome.forUser, 'utf8'))
  );
}

/**
 * Drops the oldest whole exchanges until both limits hold. An exchange starts at a user
 * entry, so the kept history always starts with one (Gemini's turn rule); a cut never falls
 * between a model entry's function calls and the tool entry answering them, nor after calls
 * still unanswered (a turn in progress), nor before an answer whose call lies outside the
 * history. The newest exchange is never dropped, even when it alone exceeds a limit: it holds
 * the message being answered. Only a history with no possible cut is returned whole. Pure:
 * returns a new array.
 *
 * The same rule decides what a store loads: see `collectHistoryWindow`.
 *
 * @example
 * context.history = boundHistory([...context.history, entry], defaultHistoryLimits);
 */
export function boundHistory<Entry extends HistoryEntry>(
  history: readonly Entry[],
  limits: HistoryLimits,
): Entry[] {
  // A history `appendHistory` or this function measured before: nothing to measure again.
  const known = measuredHistories.get(history);
  if (known !== undefined) {
    if (history.length <= limits.maxEntries && known <= limits.maxBytes)
      return remembered(history.slice(), known);
    // A long conversation's steady state: a turn's new entries push the oldest exchange out.
    const cut = cutCleanHistory(history, limits, known);
    return remembered(history.slice(cut.start), cut.bytes);
  }
  const sizes = history.map(entrySize);
  const bytes = arrayBytes(sizes);
  // The common case, every turn of a conversation within its limits: nothing to cut, and no
  // need to find where each exchange starts.
  if (history.length <= limits.maxEntries && bytes <= limits.maxBytes && startsCleanly(history))
    return remembered(history.slice(), bytes);
  const start = historyWindowStart(history, limits, sizes);
  const bounded = history.slice(start);
  return startsCleanly(bounded) ? remembered(bounded, arrayBytes(sizes.slice(start))) : bounded;
}

/**
 * `[...history, ...entries]`, for the entries a turn adds. When `history` came from
 * `boundHistory` (or from this function), the result keeps what was measured of it, so
 * bounding it costs only the new entries, not the whole conversation on every turn.
 *
 * @example
 * context.history = appendHistory(context.history, [modelEntry]);
 */
export function appendHistory<Entry extends HistoryEntry>(
  history: readonly Entry[],
  entries: readonly Entry[],
): Entry[] {
  const appended = [...history, ...entries];
  const known = measuredHistories.get(history);
  if (known === undefined || !answersCallsMade(history, entries)) return appended;
  let bytes = known;
  for (const entry of entries) bytes += entrySize(entry) + 1;
  return remembered(appended, bytes);
}

/**
 * Histories known to start where an exchange starts (`startsCleanly`), with the UTF-8 bytes of
 * their JSON array. Histories are immutable: an array's facts never change.
 */
const measuredHistories = new WeakMap<readonly HistoryEntry[], number>();

function remembered<Entry extends HistoryEntry>(history: Entry[], bytes: number): Entry[] {
  if (history.length > 0) measuredHistories.set(history, bytes);
  return history;
}

/**
 * `historyWindowStart` for a history known to start cleanly, with its array bytes known: one
 * scan from the oldest entry that stops at the first exchange start within both limits (the
 * first or second exchange, turn after turn). Every call in such a history is made before its
 * answers, so an exchange starts at a user entry once no call made before it is still open.
 */
function cutCleanHistory(
  history: readonly HistoryEntry[],
  limits: HistoryLimits,
  bytes: number,
): { start: number; bytes: number } {
  const openCalls = new Set<string>();
  let remaining = bytes;
  let newest = { start: 0, bytes };
  for (let index = 0; index < history.length; index++) {
    const entry = history[index]!;
    if (entry.role === 'user' && openCalls.size === 0) {
      if (history.length - index <= limits.maxEntries && remaining <= limits.maxBytes)
        return { start: index, bytes: remaining };
      newest = { start: index, bytes: remaining };
    } else if (entry.role === 'model') {
      for (const call of entry.calls) openCalls.add(call.id);
    } else if (entry.role === 'tool') {
      for (const result of entry.results) openCalls.delete(result.callId);
    }
    // Without this entry the array loses its bytes and one comma.
    remaining -= entrySize(entry) + (index < history.length - 1 ? 1 : 0);
  }
  return newest;
}

/** Whether every answer among `entries` answers a call made in `history` or earlier in `entries`. */
function answersCallsMade(history: readonly HistoryEntry[], entries: readonly HistoryEntry[]): boolean {
  return entries.every(
    (entry, index) =>
      entry.role !== 'tool' ||
      entry.results.every(
        (result) =>
          callMadeIn(entries, index, result.callId) || callMadeIn(history, history.length, result.callId),
      ),
  );
}

/** Whether a model entry before `end` made this call (searched newest first: it is usually near). */
function callMadeIn(history: readonly HistoryEntry[], end: number, callId: string): boolean {
  for (let index = end - 1; index >= 0; index--) {
    const entry = history[index]!;
    if (entry.role === 'model' && entry.calls.some((call) => call.id === callId)) return true;
  }
  return false;
}

/** The UTF-8 bytes of a JSON array of entries of these sizes (brackets and commas included). */
function arrayBytes(sizes: readonly number[]): number {
  let bytes = 2 + Math.max(0, sizes.length - 1);
  for (const size of sizes) bytes += size;
  return bytes;
}

/**
 * Whether index 0 is where an exchange starts (`exchangeStarts` would list it first): a user
 * entry, and no later answer to a call made before the history begins.
 */
function startsCleanly(history: readonly HistoryEntry[]): boolean {
  if (history[0]?.role !== 'user') return false;
  const callsMade = new Set<string>();
  for (const entry of history) {
    if (entry.role === 'model') for (const call of entry.calls) callsMade.add(call.id);
    else if (entry.role === 'tool')
      for (const result of entry.results) if (!callsMade.has(result.callId)) return false;
  }
  return true;
}

/** An entry with its size as stored: the UTF-8 bytes of its JSON. */
export interface SizedEntry {
  readonly entry: HistoryEntry;
  readonly bytes: number;
}

/**
 * The window `boundHistory` would keep of a stored history, found while reading it newest
 * first: it stops as soon as no older record can belong to the window — one record past the
 * limits, or further only to keep the newest exchange whole. Breaking out of `newestFirst`
 * closes it (a database cursor). Returns the window's records, oldest first. A window of no
 * entries (`maxEntries: 0`, a caller after the head alone) reads nothing.
 *
 * @example
 * const window = collectHistoryWindow(rowsNewestFirst, (row) => ({ entry: JSON.parse(row.json), bytes: row.bytes }), limits);
 */
export function collectHistoryWindow<T>(
  newestFirst: Iterable<T>,
  measure: (record: T) => SizedEntry,
  limits: HistoryLimits,
): T[] {
  if (limits.maxEntries <= 0) return [];
  const collector = new HistoryWindowCollector<T>(limits);
  for (const record of newestFirst) {
    const { entry, bytes } = measure(record);
    if (!collector.add(record, entry, bytes)) break;
  }
  return collector.window();
}

/**
 * `collectHistoryWindow` one record at a time, for stores that read in pages (a DynamoDB
 * `Query` with `ScanIndexForward: false`): feed records newest first while `add` returns true.
 */
export class HistoryWindowCollector<T> {
  private readonly records: T[] = [];
  private readonly entries: HistoryEntry[] = [];
  private readonly sizes: number[] = [];
  private arrayBytes = 2;
  // Answers read so far whose call was not read yet: no cut can fall before them.
  private readonly answersAwaitingCall = new Set<string>();
  private hasStart = false;
  private full = false;

  constructor(private readonly limits: HistoryLimits) {}

  /** Takes the next older record; false once no older record can be in the window. */
  add(record: T, entry: HistoryEntry, bytes: number): boolean {
    if (this.limits.maxEntries <= 0) return false;
    this.records.push(record);
    this.entries.push(entry);
    this.sizes.push(bytes);
    this.arrayBytes += bytes + (this.records.length > 1 ? 1 : 0);
    if (this.records.length > this.limits.maxEntries || this.arrayBytes > this.limits.maxBytes)
      this.full = true;
    if (entry.role === 'tool') {
      for (const result of entry.results) this.answersAwaitingCall.add(result.callId);
    } else if (entry.role === 'model') {
      // A call without an answer (a turn in progress) rules out every cut after it.
      for (const call of entry.calls) if (!this.answersAwaitingCall.delete(call.id)) this.hasStart = false;
    } else if (this.answersAwaitingCall.size === 0) {
      this.hasStart = true;
    }
    return !(this.full && this.hasStart);
  }

  /** The window, oldest first. */
  window(): T[] {
    if (this.limits.maxEntries <= 0) return [];
    const start = historyWindowStart(this.entries.toReversed(), this.limits, this.sizes.toReversed());
    return this.records.slice(0, this.records.length - start).reverse();
  }
}

/** Where `boundHistory` cuts: the earliest exchange start within both limits, else the newest start. */
function historyWindowStart(
  history: readonly HistoryEntry[],
  limits: HistoryLimits,
  sizes: readonly number[],
): number {
  // bytesFrom[i]: the JSON array of history[i..] — brackets, entries and the commas between.
  const bytesFrom = new Array<number>(history.length + 1).fill(2);
  for (let index = history.length - 1; index >= 0; index--) {
    bytesFrom[index] = bytesFrom[index + 1]! + sizes[index]! + (index < history.length - 1 ? 1 : 0);
  }
  const fits = (start: number) =>
    history.length - start <= limits.maxEntries && bytesFrom[start]! <= limits.maxBytes;
  const starts = exchangeStarts(history);
  return starts.find(fits) ?? starts.at(-1) ?? 0;
}

/**
 * Indexes where an exchange starts and history may be cut: a user entry, with every function
 * call made before it already answered before it, and no answer after it to a call made
 * before the history begins.
 */
function exchangeStarts(history: readonly HistoryEntry[]): number[] {
  // For each model entry with calls, where its last call is answered (Infinity while one is
  // open): no cut may fall after the model entry and up to that answer.
  const ownerOfCall = new Map<string, number>();
  const callsMade = new Set<string>();
  const openCalls = new Map<number, number>();
  const settledAt = new Map<number, number>();
  let lastOrphanAnswer = -1;
  history.forEach((entry, index) => {
    if (entry.role === 'model' && entry.calls.length > 0) {
      const callIds = new Set(entry.calls.map((call) => call.id));
      openCalls.set(index, callIds.size);
      settledAt.set(index, Infinity);
      for (const callId of callIds) {
        ownerOfCall.set(callId, index);
        callsMade.add(callId);
      }
    } else if (entry.role === 'tool') {
      for (const result of entry.results) {
        if (!callsMade.has(result.callId)) lastOrphanAnswer = index;
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
  let blockedUntil = lastOrphanAnswer;
  for (let index = 0; index < history.length; index++) {
    if (index > 0) blockedUntil = Math.max(blockedUntil, settledAt.get(index - 1) ?? -1);
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
