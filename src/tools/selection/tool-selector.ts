import type { HistoryEntry, SourceKind, UserEntry } from '../../domain/index.js';
import type { Tool } from '../tool.js';
import { KeywordMatcher, normalize } from './keyword-match.js';
import type { MatchedMessage, OfferedTool, SelectionReason } from './selection-reason.js';
import { TOOL_FINDER_NAME, toolsRequestedInTurn } from './tool-finder.js';

/** What selection reads: only the conversation itself, so a restored turn selects the same. */
export interface SelectionContext {
  readonly sourceKind: SourceKind;
  readonly history: readonly HistoryEntry[];
  /** The current turn's id: its model and tool entries carry it. */
  readonly turnId: string;
  /** The event ids of the current turn's messages (one, or several merged). */
  readonly currentEventIds: readonly string[];
}

export interface ToolSelectorOptions {
  /** How many of the latest user messages are searched for keywords (default 4; the turn's own always). */
  readonly recentUserMessages?: number;
  /** A tool called in this many of the latest turns stays offered (default 3; this turn included). */
  readonly recentTurns?: number;
}

/** The outcome for one step: what is offered and why, and what is withheld (names only). */
export interface ToolSelection {
  /** Sorted by name. */
  readonly offered: readonly OfferedTool[];
  /** Sorted by name. */
  readonly withheld: readonly string[];
}

const DEFAULT_RECENT_USER_MESSAGES = 4;
const DEFAULT_RECENT_TURNS = 3;

/**
 * Chooses the tools of one model step (docs/design-notes.md, "Choosing tools per step"). Required tools are
 * always offered. An optional tool is offered when the model asked the tool finder for it
 * this turn, when it is always offered in this kind of chat, when one of its keywords or
 * intents is in a recent user message, or when the conversation used it recently; a tool
 * whose `sourceKinds` leave this chat out is offered only on request. Deterministic: the
 * same conversation gives the same selection, with every reason spelled out.
 *
 * When no tool finder is registered nothing is withheld, since a withheld tool could then
 * never be reached.
 * @example
 * const { offered } = selectTools(registry.list(), { sourceKind: 'user', history, turnId, currentEventIds });
 */
export function selectTools(
  tools: readonly Tool[],
  context: SelectionContext,
  options: ToolSelectorOptions = {},
): ToolSelection {
  const finderRegistered = tools.some((tool) => tool.name === TOOL_FINDER_NAME);
  const messages = recentUserMessages(context, options.recentUserMessages ?? DEFAULT_RECENT_USER_MESSAGES);
  const recentlyUsed = recentlyUsedTools(context, options.recentTurns ?? DEFAULT_RECENT_TURNS);
  const requested = toolsRequestedInTurn(context.history, context.turnId);

  const offered: OfferedTool[] = [];
  const withheld: string[] = [];
  for (const tool of sortedByName(tools)) {
    const reasons: SelectionReason[] = !tool.optional
      ? [{ kind: 'required' }]
      : !finderRegistered
        ? [{ kind: 'no-tool-finder' }]
        : reasonsToOffer(tool, context.sourceKind, messages, recentlyUsed, requested);
    if (reasons.length > 0) offered.push({ name: tool.name, reasons });
    else withheld.push(tool.name);
  }
  return { offered, withheld };
}

// A registry hands out the same list until it changes: sorted once per list.
const sortedLists = new WeakMap<readonly Tool[], readonly Tool[]>();
function sortedByName(tools: readonly Tool[]): readonly Tool[] {
  let sorted = sortedLists.get(tools);
  if (!sorted) {
    sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    sortedLists.set(tools, sorted);
  }
  return sorted;
}

interface RecentMessage {
  readonly entry: UserEntry;
  readonly message: MatchedMessage;
}

/** A keyword or intent found in a message, before it is told which message that was. */
type Hint = { kind: 'keyword'; keyword: string } | { kind: 'intent'; intent: string };

// History entries are immutable and keep their identity from turn to turn: each message is
// normalised and matched against a tool once, not on every step of every later turn.
const hintsByEntry = new WeakMap<UserEntry, { normalized: string; hints: Map<Tool, Hint | null> }>();

/** The first keyword, else the first intent, of `tool` in this message. */
function hintInEntry(tool: Tool, entry: UserEntry): Hint | undefined {
  let known = hintsByEntry.get(entry);
  if (!known) hintsByEntry.set(entry, (known = { normalized: normalize(entry.text), hints: new Map() }));
  const cached = known.hints.get(tool);
  if (cached !== undefined) return cached ?? undefined;
  const { normalized } = known;
  const keyword = matcherFor(tool)?.firstInNormalized(normalized);
  const intent =
    keyword === undefined ? tool.intents?.find((pattern) => pattern.test(normalized)) : undefined;
  const hint: Hint | null =
    keyword !== undefined
      ? { kind: 'keyword', keyword }
      : intent
        ? { kind: 'intent', intent: String(intent) }
        : null;
  known.hints.set(tool, hint);
  return hint ?? undefined;
}

function reasonsToOffer(
  tool: Tool,
  sourceKind: SourceKind,
  messages: readonly RecentMessage[],
  recentlyUsed: ReadonlyMap<string, number>,
  requested: ReadonlySet<string>,
): SelectionReason[] {
  const reasons: SelectionReason[] = [];
  if (requested.has(tool.name)) reasons.push({ kind: 'requested' });
  // Outside the chats it suits, a tool is there only when asked for.
  if (tool.sourceKinds && !tool.sourceKinds.includes(sourceKind)) return reasons;
  if (tool.offerAlwaysIn?.includes(sourceKind)) reasons.push({ kind: 'source-kind', sourceKind });
  const hint = hintIn(tool, messages);
  if (hint) reasons.push(hint);
  const turnsAgo = recentlyUsed.get(tool.name);
  if (turnsAgo !== undefined) reasons.push({ kind: 'used-recently', turnsAgo });
  return reasons;
}

/** The first keyword, else the first intent, found; the current messages before earlier ones. */
function hintIn(tool: Tool, messages: readonly RecentMessage[]): SelectionReason | undefined {
  for (const wanted of ['current', 'earlier'] as const) {
    for (const { entry, message } of messages) {
      if (message !== wanted) continue;
      const hint = hintInEntry(tool, entry);
      if (hint) return { ...hint, message };
    }
  }
  return undefined;
}

// Built once per tool object: tools do not change after registration.
const matchers = new WeakMap<Tool, KeywordMatcher>();
function matcherFor(tool: Tool): KeywordMatcher | undefined {
  if (!tool.keywords || tool.keywords.length === 0) return undefined;
  let matcher = matchers.get(tool);
  if (!matcher) {
    matcher = new KeywordMatcher(tool.keywords);
    matchers.set(tool, matcher);
  }
  return matcher;
}

/** The latest user messages, newest last; every message of the current turn is among them. */
function recentUserMessages(context: SelectionContext, count: number): RecentMessage[] {
  const current = new Set(context.currentEventIds);
  // Newest first, `count` messages or more: the current turn's are the newest, all of them taken.
  const recent: UserEntry[] = [];
  for (let index = context.history.length - 1; index >= 0; index--) {
    const entry = context.history[index]!;
    if (entry.role !== 'user') continue;
    if (recent.length >= count && !current.has(entry.eventId)) break;
    recent.push(entry);
  }
  return recent.reverse().map((entry) => ({
    entry,
    message: current.has(entry.eventId) ? 'current' : 'earlier',
  }));
}

/** Tool name → how many turns ago the conversation last called it, within the window. */
function recentlyUsedTools(context: SelectionContext, turns: number): Map<string, number> {
  const used = new Map<string, number>();
  // Newest first: earlier turns in the order they are met reading back from the newest entry.
  const earlierTurns: string[] = [];
  for (let index = context.history.length - 1; index >= 0; index--) {
    const entry = context.history[index]!;
    if (entry.role !== 'model') continue;
    let ago = 0;
    if (entry.turnId !== context.turnId) {
      let position = earlierTurns.indexOf(entry.turnId);
      if (position < 0) position = earlierTurns.push(entry.turnId) - 1;
      ago = position + 1;
    }
    // Every entry further back belongs to this turn or an older one.
    if (ago >= turns) break;
    for (const call of entry.calls) {
      const known = used.get(call.name);
      if (known === undefined || ago < known) used.set(call.name, ago);
    }
  }
  return used;
}
