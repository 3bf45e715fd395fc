import { defaults } from '../defaults/index.js';
import type {
  FunctionCall,
  HistoryEntry,
  InboundMessage,
  Sender,
  Source,
  ToolOutcome,
} from '../domain/index.js';
import type { TokenUsage } from '../model/index.js';

/** What happens to messages that arrive while a turn runs. None is ever dropped. */
export type QueuePolicy = 'queue' | 'merge';

export interface ConversationSettings {
  /** Model calls per turn before the turn stops (default 10). */
  readonly maxModelCalls: number;
  /** `queue`: one turn per message, in order. `merge`: everything waiting becomes one turn. */
  readonly queuePolicy: QueuePolicy;
  /** Queued turns per source; beyond it the newest messages merge into the last one. */
  readonly maxQueuedTurns: number;
  /** Sent when the model fails for good, so the user is never left in silence. */
  readonly apology: string;
  /** History keeps the newest whole exchanges within these (a stored item stays far below 400 KB). */
  readonly maxHistoryEntries: number;
  readonly maxHistoryBytes: number;
  /** Model calls per source per minute (0: no limit). */
  readonly maxModelCallsPerMinute: number;
  /** Prompt and output tokens per source per 24 hours (0: no limit). */
  readonly dailyTokenBudget: number;
  /** Sent instead of an answer when a limit is reached. */
  readonly limitNotice: string;
}

/** The settings a conversation has when its input gives none (the reasons are in `defaults/defaults.ts`). */
export const defaultConversationSettings: ConversationSettings = defaults.conversation;

export type StopReason =
  | 'no-function-calls'
  | 'final-tool'
  | 'model-call-limit'
  | 'model-failed'
  /** A per-source rate or budget limit: the user got the limit notice. */
  | 'limit-reached';

/** One finished turn's cost, for the per-minute and per-day limits (kept for a day). */
export interface UsageRecord {
  /** The turn's start (its first message's timestamp). */
  readonly at: number;
  readonly modelCalls: number;
  readonly tokens: number;
}

/** One function call of the current step and, once it settled, its outcome. */
export interface StepCall {
  readonly call: FunctionCall;
  readonly outcome?: ToolOutcome;
}

/** The turn in progress. Everything is JSON: it is persisted after every step. */
export interface Turn {
  /** The first message's event id: stable across restores, the root of every retry key. */
  readonly id: string;
  readonly messages: readonly InboundMessage[];
  readonly startedAt: number;
  readonly modelCalls: number;
  readonly step: readonly StepCall[];
  /** How many deliveries went out this turn; the next one's index. */
  readonly deliveries: number;
  readonly replied: boolean;
  readonly usage: TokenUsage;
  readonly stopReason?: StopReason;
}

/** A short record of the last finished turn, for logs and the inspector. */
export interface TurnSummary {
  readonly id: string;
  readonly stopReason: StopReason;
  readonly modelCalls: number;
  readonly usage: TokenUsage;
  readonly startedAt: number;
}

/** A cached LINE profile: display names are looked up once and refreshed now and then. */
export interface KnownProfile {
  readonly displayName?: string;
  readonly fetchedAt: number;
}

/** What is known of a group or room. */
export interface ChatDetails {
  readonly title?: string;
  readonly memberCount?: number;
}

export interface ConversationContext {
  readonly source: Source;
  readonly settings: ConversationSettings;
  readonly history: readonly HistoryEntry[];
  /** Turns waiting to start, each a group of one or more messages. */
  readonly pending: readonly (readonly InboundMessage[])[];
  readonly turn: Turn | null;
  readonly lastTurn: TurnSummary | null;
  /** Recently accepted event ids: a message seen twice is ignored. */
  readonly recentEventIds: readonly string[];
  /** Display names by user id (the speakers of this source). */
  readonly profiles: Readonly<Record<string, KnownProfile>>;
  readonly chat: ChatDetails;
  /** Recent turns' cost, for the limits. */
  readonly usage: readonly UsageRecord[];
}

export interface ConversationInput {
  readonly source: Source;
  readonly settings?: Partial<ConversationSettings>;
  readonly history?: readonly HistoryEntry[];
}

export type ConversationEvent =
  | { type: 'line.message'; message: InboundMessage }
  /** The user took a message back: it leaves history (and the queue). */
  | { type: 'line.unsend'; messageId: string };

// Inputs of the invoked actors. They are persisted with the snapshot while in flight:
// small, plain JSON, never the history (actors read it through the system).
export interface GenerateInput {
  readonly sourceId: string;
  readonly turnId: string;
  readonly modelCall: number;
}
export interface ExecuteToolInput {
  readonly turnId: string;
  readonly source: Source;
  readonly sender?: Sender;
  readonly call: FunctionCall;
}

/** One delivery to the user; `turnId` + `index` derive the push retry key. */
export interface DeliveryRequest {
  readonly source: Source;
  readonly turnId: string;
  readonly index: number;
  readonly texts: readonly string[];
  /** Only on the first delivery of a turn: a reply token is single-use. */
  readonly replyToken?: string;
  /** The event's timestamp: the reply token's age counts from here. */
  readonly replyTokenIssuedAt?: number;
  readonly quoteToken?: string;
}

export interface DeliveryReceipt {
  readonly method: 'reply' | 'push';
}
