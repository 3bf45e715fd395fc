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
  /** Sent, with no model call, for messages a full inbox did not keep (docs/security.md). */
  readonly inboxFullNotice: string;
  /**
   * A turn's model calls, retries included, must be over this long after the turn started (ms).
   * The deadline is fixed when the turn starts and persisted with it: a resumed turn keeps it.
   */
  readonly turnDeadlineMs: number;
}

/** The settings a conversation has when its input gives none (the reasons are in `defaults/defaults.ts`). */
export const defaultConversationSettings: ConversationSettings = defaults.conversation;

export type StopReason =
  | 'no-function-calls'
  | 'final-tool'
  | 'model-call-limit'
  | 'model-failed'
  /** A per-source rate or budget limit: the user got the limit notice. */
  | 'limit-reached'
  /** Messages a full inbox did not keep: the user got the inbox-full notice. */
  | 'inbox-full'
  /**
   * Resumed after its process died too many times (docs/runtime.md, "Poison"): set aside
   * without its pending side effects; the host tells the user.
   */
  | 'abandoned'
  /**
   * Not a turn that ran: a message whose turns kept starting and never finished was set aside
   * by the host (docs/runtime.md, "Poison") with a notice; recorded so the inspector says why.
   */
  | 'quarantined';

/**
 * The cost of the turns that started in one fixed period (a minute or a day, aligned to the
 * epoch): the per-minute and per-day limits read these. At most three are kept — this
 * minute, the one before it, and today — however many turns a source has.
 */
export interface UsageBucket {
  readonly period: 'minute' | 'day';
  /** Where the period starts (epoch ms, a multiple of its length). */
  readonly start: number;
  readonly modelCalls: number;
  readonly tokens: number;
}

export type LimitKind = 'model-calls-per-minute' | 'daily-token-budget';

/**
 * A limit the chat is told of, once per period: a flood does not get a notice per message.
 * `at`: when it was found reached; `until`: when a notice of it may go out again.
 */
export interface LimitNotice {
  readonly limit: LimitKind;
  readonly at: number;
  readonly until: number;
}

/**
 * A history entry with its place in the source's history: `seq` increases by one per entry,
 * is never reused, and is how the store appends and deletes entries (docs/persistence.md).
 */
export type SequencedEntry = HistoryEntry & { readonly seq: number };

/** One function call of the current step and, once it settled, its outcome. */
export interface StepCall {
  readonly call: FunctionCall;
  readonly outcome?: ToolOutcome;
}

/**
 * A message of the running turn, as the turn keeps it: its text is in history already; what
 * is left says how to answer it (reply and quote tokens, who wrote it) and where its media is.
 */
export type TurnMessage = Pick<
  InboundMessage,
  'eventId' | 'timestamp' | 'sender' | 'replyToken' | 'quoteToken' | 'attachment' | 'quiet' | 'overflow'
>;

/** The turn in progress. Everything is JSON: it is persisted in the head at each checkpoint. */
export interface Turn {
  /** The first message's event id: stable across restores, the root of every retry key. */
  readonly id: string;
  readonly messages: readonly TurnMessage[];
  /** When the host started the turn (epoch ms). */
  readonly startedAt: number;
  /** When the turn's model calls must be over (epoch ms); fixed at the start, kept on resume. */
  readonly deadlineAt: number;
  readonly modelCalls: number;
  readonly step: readonly StepCall[];
  /** How many deliveries went out this turn; the next one's index (its slot). */
  readonly deliveries: number;
  /** Failed tries of the next slot so far: a failure keeps the slot, so its retry key stays. */
  readonly slotFailures?: number;
  /** Times a host resumed this turn from a checkpoint after its process died (counted before). */
  readonly resumes?: number;
  readonly replied: boolean;
  /** A notice (the apology, a limit notice) went out instead of an answer; one of `deliveries`. */
  readonly noticeSent?: boolean;
  /** The limit this turn's notice tells of: the chat's `limitTold` once it went out. */
  readonly limitNotice?: LimitNotice;
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
  /** Whether the model's answer reached the user (absent in summaries written before it was kept). */
  readonly replied?: boolean;
  /** Messages that went out to the user: the answer, a tool's own, a notice (absent as above). */
  readonly deliveries?: number;
  /** Whether one of them was a notice (absent in summaries written before it was kept). */
  readonly noticeSent?: boolean;
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

/**
 * The conversation's context. `settings` and `history` live in memory only: the snapshot
 * codec (src/actors/snapshot-codec.ts) takes them out of every persisted snapshot and puts
 * the configuration and the loaded history window back on restore. Messages waiting for
 * their turn stay in the store's inbox, display names in the store's profile items.
 */
export interface ConversationContext {
  readonly source: Source;
  readonly settings: ConversationSettings;
  readonly history: readonly SequencedEntry[];
  /** The highest `seq` given to an entry so far; the next entry gets the one above. */
  readonly lastSeq: number;
  readonly turn: Turn | null;
  readonly lastTurn: TurnSummary | null;
  readonly chat: ChatDetails;
  /** The cost of recent turns in fixed buckets (at most three), for the limits. */
  readonly usage: readonly UsageBucket[];
  /**
   * The limit the chat was last told of: until its `until`, a turn that reaches it again ends
   * quietly (its messages kept as context); absent in snapshots written before.
   */
  readonly limitTold?: LimitNotice;
  /**
   * Messages taken back before they arrived (LINE does not promise order: a message redelivered
   * after its unsend), dropped when they come; absent in snapshots written before.
   */
  readonly unsentAhead?: readonly UnsentAhead[];
}

/** A message the user took back that the conversation had not seen yet; `at`: the unsend's time. */
export interface UnsentAhead {
  readonly messageId: string;
  readonly at: number;
}

export interface ConversationInput {
  readonly source: Source;
  readonly settings?: Partial<ConversationSettings>;
  readonly history?: readonly SequencedEntry[];
  /** The highest `seq` already used (the store's head), when it is above the history's last. */
  readonly lastSeq?: number;
}

export type ConversationEvent =
  /**
   * The messages of one turn (one message, or several merged), sent by the host when the
   * conversation is idle; `at` is when the turn starts (epoch ms), the origin of its deadline.
   */
  | { type: 'line.messages'; messages: readonly InboundMessage[]; at: number }
  /**
   * The user took a message back: it leaves history. `foundElsewhere`: the host found it outside
   * this history (stored beyond it, or still waiting in the inbox, where it goes with the
   * unsend); `at`: the unsend's time (a message not seen anywhere is dropped when it comes).
   */
  | { type: 'line.unsend'; messageId: string; foundElsewhere?: boolean; at?: number }
  /**
   * The host made the current snapshot durable (the intent of the side effect that waits).
   * `resumed`: the intent was durable before this process got the conversation — the side
   * effect may already have happened once (a delivery then treats "invalid reply token" as sent).
   */
  | { type: 'checkpoint.done'; resumed: boolean }
  /**
   * Set the turn in progress aside (its resumption kept killing its process, or what it did could
   * never be stored), in whatever state it is: no pending side effect runs; calls still
   * unanswered get an error result, and the turn ends as `abandoned`.
   */
  | { type: 'turn.abandon' }
  /**
   * Sent while idle: the host set a message aside (poison) and told the user when `noticeSent`;
   * it becomes the last turn's summary, so the stored head says why that message got no answer.
   */
  | { type: 'message.quarantined'; eventId: string; at: number; noticeSent: boolean };

/** What the conversation announces to its host (`actor.on(type, handler)`). */
export type ConversationEmitted =
  | { type: 'turn.started'; turnId: string }
  | { type: 'turn.ended'; turnId: string; outcome: StopReason | 'quiet' }
  /** A side effect waits: make the current snapshot durable, then send `checkpoint.done`. */
  | { type: 'checkpoint.needed'; turnId: string; reason: 'tool' | 'delivery' }
  /** An unsend removed these entries from history (possibly none). */
  | { type: 'history.removed'; seqs: readonly number[] };

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
  /** The call's intent was durable before this process took the conversation over. */
  readonly resumed?: boolean;
}

/** One delivery to the user; `turnId` + `index` derive the push retry key. */
export interface DeliveryRequest {
  readonly source: Source;
  readonly turnId: string;
  /**
   * The delivery slot: how many deliveries of this turn went out before. A failed delivery
   * leaves it as it was, so every try of a slot carries the same retry key (docs/line.md).
   */
  readonly index: number;
  /** Which try of this slot this is (1 for the first): a later one may find the first delivered. */
  readonly attempt?: number;
  /** When the turn started: its intent is at most this old, for LINE's 24-hour retry-key window. */
  readonly turnStartedAt?: number;
  readonly texts: readonly string[];
  /** Only on the first delivery of a turn: a reply token is single-use. */
  readonly replyToken?: string;
  /** The event's timestamp: the reply token's age counts from here. */
  readonly replyTokenIssuedAt?: number;
  readonly quoteToken?: string;
  /**
   * The intent of this delivery was durable before this process took the conversation over:
   * it may have been sent already, so LINE's "invalid reply token" means delivered, not expired.
   */
  readonly resumed?: boolean;
}

export interface DeliveryReceipt {
  readonly method: 'reply' | 'push';
  /** LINE's ids of the messages that went out, when its answer gave them. */
  readonly sentMessageIds?: readonly string[];
}
