import type { JsonObject } from '../domain/index.js';
import { activeStateIds, stateValueText } from './chart-model.js';
import { turnOutcome, type TurnOutcome } from './turn-outcome.js';

/**
 * What the inspector reads from a conversation's snapshot, live or stored. Snapshots are
 * read defensively: a stored one may come from an older machine.
 */
interface LooseContext {
  source?: { kind?: string; id?: string };
  settings?: { maxModelCalls?: number };
  history?: LooseEntry[];
  pending?: LooseMessage[][];
  turn?: {
    id?: string;
    startedAt?: number;
    modelCalls?: number;
    deliveries?: number;
    replied?: boolean;
    stopReason?: string;
    usage?: unknown;
    messages?: LooseMessage[];
    step?: { call?: { id?: string; name?: string; args?: unknown }; outcome?: unknown }[];
  } | null;
  lastTurn?: unknown;
  profiles?: Record<string, { displayName?: string } | undefined>;
  chat?: { title?: string; memberCount?: number };
}
interface LooseEntry {
  role?: string;
  sender?: { userId?: string; displayName?: string };
}
interface LooseMessage {
  eventId?: string;
  sender?: { userId?: string; displayName?: string };
  text?: string;
  timestamp?: number;
}

/** The part of a snapshot the views need. */
export interface SnapshotLike {
  readonly value?: unknown;
  readonly status?: string;
  readonly context?: unknown;
}

/** A few numbers kept with every journal entry, so replay shows how the context moved. */
export function conversationSummary(context: unknown): JsonObject | undefined {
  const value = asContext(context);
  if (!value) return undefined;
  const turn = value.turn ?? null;
  return {
    history: value.history?.length ?? 0,
    queued: (value.pending ?? []).reduce((sum, group) => sum + group.length, 0),
    modelCalls: turn?.modelCalls ?? 0,
    pendingTools: (turn?.step ?? []).filter((step) => step.outcome === undefined).length,
  };
}

/** One row of the inspector's source list. */
export interface SourceRow {
  readonly sourceId: string;
  readonly kind: string;
  readonly displayName?: string;
  readonly state: string;
  readonly live: boolean;
  readonly lastActivity?: number;
  /** How the last turn ended, and why it got no answer when it did not. */
  readonly lastTurn?: TurnOutcome;
}

export function sourceRow(
  sourceId: string,
  snapshot: SnapshotLike | undefined,
  facts: { live: boolean; lastActivity?: number; fallbackName?: string },
): SourceRow {
  const context = asContext(snapshot?.context);
  const kind = context?.source?.kind ?? kindFromId(sourceId);
  const displayName =
    kind === 'user'
      ? ((context && userNameOf(context)) ?? facts.fallbackName)
      : (context?.chat?.title ?? facts.fallbackName ?? `${kind} ${shortId(sourceId)}`);
  const lastTurn = turnOutcome(context?.lastTurn);
  return {
    sourceId,
    kind,
    ...(displayName && { displayName }),
    state: stateValueText(snapshot?.value),
    live: facts.live,
    ...(facts.lastActivity !== undefined && { lastActivity: facts.lastActivity }),
    ...(lastTurn && { lastTurn }),
  };
}

/** Everything the inspector shows of one conversation: state, context in parts, the raw context. */
export function conversationView(machineId: string, snapshot: SnapshotLike) {
  const context = asContext(snapshot.context) ?? {};
  const turn = context.turn ?? null;
  return {
    state: stateValueText(snapshot.value),
    stateValue: snapshot.value ?? null,
    activeStateIds: activeStateIds(machineId, snapshot.value),
    status: snapshot.status ?? 'active',
    iteration: { modelCalls: turn?.modelCalls ?? 0, maxModelCalls: context.settings?.maxModelCalls ?? null },
    queued: (context.pending ?? []).map((group) =>
      group.map((message) => ({
        eventId: message.eventId ?? null,
        sender: message.sender?.displayName ?? message.sender?.userId ?? null,
        text: message.text ?? '',
        timestamp: message.timestamp ?? null,
      })),
    ),
    pendingTools: (turn?.step ?? [])
      .filter((step) => step.outcome === undefined)
      .map((step) => ({
        id: step.call?.id ?? null,
        name: step.call?.name ?? '?',
        args: step.call?.args ?? {},
      })),
    turn: turn && {
      id: turn.id ?? null,
      startedAt: turn.startedAt ?? null,
      modelCalls: turn.modelCalls ?? 0,
      deliveries: turn.deliveries ?? 0,
      replied: turn.replied ?? false,
      stopReason: turn.stopReason ?? null,
      usage: turn.usage ?? null,
      messages: turn.messages?.length ?? 0,
    },
    lastTurn: context.lastTurn ?? null,
    history: context.history ?? [],
    context: snapshot.context ?? null,
  };
}

export type ConversationView = ReturnType<typeof conversationView>;

/**
 * A 1:1 chat is named by its user: the profile, else the name on their last message. Groups and
 * rooms are named by their own title only — never by who spoke in them (that would label a
 * group "Aiko").
 */
function userNameOf(context: LooseContext): string | undefined {
  const sourceId = context.source?.id;
  if (sourceId && context.profiles?.[sourceId]?.displayName) return context.profiles[sourceId].displayName;
  return context.history?.findLast((entry) => entry.role === 'user' && entry.sender?.displayName)?.sender
    ?.displayName;
}

/** "C1a2b3…f809": enough of a LINE id to tell chats apart. */
function shortId(sourceId: string): string {
  return sourceId.length > 12 ? `${sourceId.slice(0, 6)}…${sourceId.slice(-4)}` : sourceId;
}

/** LINE ids say their kind: U… user, C… group, R… room. */
function kindFromId(sourceId: string): string {
  return sourceId.startsWith('C') ? 'group' : sourceId.startsWith('R') ? 'room' : 'user';
}

function asContext(context: unknown): LooseContext | undefined {
  return context && typeof context === 'object' ? context : undefined;
}
