import {
  appendHistory,
  boundHistory,
  MAX_STEP_RESULT_BYTES,
  outcomeBytes,
  reminderLateBy,
  reminderTextOf,
  REPLY_TOOL_NAME,
  SKIP_TOOL_NAME,
  type FunctionCall,
  type HistoryEntry,
  type InboundMessage,
  type Sender,
  type ToolOutcome,
} from '../domain/index.js';
import type { ModelResponse, TokenUsage } from '../model/index.js';
import type {
  ConversationContext,
  SequencedEntry,
  StepCall,
  StopReason,
  Turn,
  TurnMessage,
  TurnSummary,
  UnsentAhead,
} from './conversation-types.js';
import { recordUsage } from './usage-limits.js';

// Pure context updates of the conversation machine: each takes the context and
// returns the fields it changes, so every rule is testable without an actor.

/** Gives entries the next `seq` numbers of the conversation, in order. */
function sequenced(
  context: Pick<ConversationContext, 'lastSeq'>,
  entries: readonly HistoryEntry[],
): { entries: SequencedEntry[]; lastSeq: number } {
  const numbered = entries.map((entry, index) => ({ ...entry, seq: context.lastSeq + index + 1 }));
  return { entries: numbered, lastSeq: context.lastSeq + entries.length };
}

/**
 * Removes a message the user took back from history; says which entries went. A message seen
 * nowhere (not here, not `foundElsewhere` by the host) has not arrived yet: it is remembered,
 * and dropped when it comes (`startTurn`).
 */
export function unsendMessage(
  context: ConversationContext,
  unsend: { readonly messageId: string; readonly foundElsewhere?: boolean; readonly at?: number },
): { update: Partial<ConversationContext>; removed: number[] } {
  const { messageId, foundElsewhere, at } = unsend;
  const removed = context.history
    .filter((entry) => entry.role === 'user' && entry.messageId === messageId)
    .map((entry) => entry.seq);
  if (removed.length > 0)
    return { update: { history: context.history.filter((entry) => !removed.includes(entry.seq)) }, removed };
  if (foundElsewhere || at === undefined) return { update: {}, removed };
  const unsentAhead = [...(context.unsentAhead ?? []), { messageId, at }]
    .filter((ahead) => ahead.at > at - UNSENT_AHEAD_KEPT_MS)
    .slice(-MAX_UNSENT_AHEAD);
  return { update: { unsentAhead }, removed };
}

// LINE lets a user take a message back for a day; a redelivery comes within that. A chat takes
// back few messages it never saw: the newest are kept, so the head stays small.
const UNSENT_AHEAD_KEPT_MS = 24 * 3600_000;
const MAX_UNSENT_AHEAD = 20;

/**
 * The messages the user took back before they came (`unsendMessage`) leave; the rest stay.
 * `unsentAhead`: what is left to wait for, when some came (else undefined: nothing changed).
 */
function withoutUnsentAhead(
  context: ConversationContext,
  messages: readonly InboundMessage[],
): { kept: InboundMessage[]; unsentAhead?: readonly UnsentAhead[] } {
  const ahead = context.unsentAhead ?? [];
  const taken = new Set(ahead.map((entry) => entry.messageId));
  const kept = messages.filter((message) => !message.messageId || !taken.has(message.messageId));
  if (kept.length === messages.length) return { kept };
  const arrived = new Set(messages.flatMap((message) => (message.messageId ? [message.messageId] : [])));
  return { kept, unsentAhead: ahead.filter((entry) => !arrived.has(entry.messageId)) };
}

/** A turn of quiet messages only (group talk not addressed to the bot, notes): history, no model. */
export function isQuietTurn(turn: Turn | null): boolean {
  return !!turn && turn.messages.every((message) => message.quiet);
}

/**
 * A turn for the messages a full inbox did not keep (docs/security.md, "A source's inbox"): the
 * user gets the inbox-full notice, no model call.
 */
export function isInboxFullTurn(turn: Turn | null): boolean {
  return !!turn && turn.messages.some((message) => message.overflow && !message.quiet);
}

/**
 * Starts a turn with the messages the host fed (one, or several merged): they go into history
 * before anything else happens, and what they tell about the chat is kept. The deadline is
 * fixed here, from the host's clock, and persisted with the turn.
 */
export function startTurn(
  context: ConversationContext,
  fed: readonly InboundMessage[],
  at: number,
): Partial<ConversationContext> {
  if (!fed[0]) throw new Error('startTurn without a message');
  // Messages taken back before they came are not this turn's: with none left, it is a quiet one.
  const { kept: messages, unsentAhead } = withoutUnsentAhead(context, fed);
  const userEntries: HistoryEntry[] = messages.map((message) => ({
    role: 'user',
    eventId: message.eventId,
    text: message.text,
    timestamp: message.timestamp,
    ...(message.sender && { sender: senderForHistory(message.sender) }),
    ...(message.messageId && { messageId: message.messageId }),
    ...(message.quotedMessageId && { quotedMessageId: message.quotedMessageId }),
    ...(message.attachment && { attachment: message.attachment }),
    ...(message.lineEvent && { event: message.lineEvent }),
    ...(message.dueAt !== undefined && { dueAt: message.dueAt }),
  }));
  const quotingTheBot = quotesOfTheBot(context.history, messages);
  const turn: Turn = {
    id: fed[0].eventId,
    // Group talk that quotes the bot's own message is addressed to it, mention or not.
    messages: messages.map((message) =>
      turnMessageOf(quotingTheBot.has(message.eventId) ? { ...message, quiet: false } : message),
    ),
    startedAt: at,
    deadlineAt: at + context.settings.turnDeadlineMs,
    modelCalls: 0,
    step: [],
    deliveries: 0,
    replied: false,
    usage: { promptTokens: 0, outputTokens: 0, cachedTokens: 0 },
  };
  const { entries, lastSeq } = sequenced(context, userEntries);
  let chat = context.chat;
  for (const message of messages) {
    chat = {
      ...chat,
      ...(message.chatTitle !== undefined && { title: message.chatTitle }),
      ...(message.memberCount !== undefined && { memberCount: message.memberCount }),
    };
  }
  return {
    turn,
    chat,
    lastSeq,
    history: boundedHistory(context, appendHistory(context.history, entries)),
    ...(unsentAhead && { unsentAhead }),
  };
}

/** The quiet messages (group talk under `mention`) that reply to one of the bot's own messages. */
function quotesOfTheBot(history: readonly HistoryEntry[], messages: readonly InboundMessage[]): Set<string> {
  const quoting = messages.filter((message) => message.quiet && message.quotedMessageId);
  if (quoting.length === 0) return new Set();
  const sentByTheBot = new Set(
    history.flatMap((entry) =>
      entry.role === 'tool' ? entry.results.flatMap((result) => result.lineMessageIds ?? []) : [],
    ),
  );
  return new Set(
    quoting
      .filter((message) => message.quotedMessageId !== undefined && sentByTheBot.has(message.quotedMessageId))
      .map((message) => message.eventId),
  );
}

/** What the turn needs of a message once its text is in history: how to answer it, and its media. */
function turnMessageOf(message: InboundMessage): TurnMessage {
  return {
    eventId: message.eventId,
    timestamp: message.timestamp,
    ...(message.sender && { sender: senderForHistory(message.sender) }),
    ...(message.replyToken && { replyToken: message.replyToken }),
    ...(message.quoteToken && { quoteToken: message.quoteToken }),
    ...(message.attachment && { attachment: message.attachment }),
    ...(message.quiet && { quiet: true }),
    ...(message.overflow && { overflow: message.overflow }),
  };
}

function senderForHistory(sender: Sender): Sender {
  return { userId: sender.userId, ...(sender.displayName && { displayName: sender.displayName }) };
}

/** Records the model's answer in history and makes its calls the current step. */
export function recordModelResponse(
  context: ConversationContext,
  response: ModelResponse,
): Partial<ConversationContext> {
  const turn = currentTurn(context);
  const modelCall = turn.modelCalls + 1;
  const calls: FunctionCall[] = response.calls.map((call, index) => ({
    id: call.id ?? `${turn.id}#${modelCall}.${index}`,
    name: call.name,
    args: call.args,
  }));
  const entry: HistoryEntry = {
    role: 'model',
    turnId: turn.id,
    calls,
    ...(response.text !== undefined && { text: response.text }),
    ...(response.providerParts && { providerParts: response.providerParts }),
  };
  const { entries, lastSeq } = sequenced(context, [entry]);
  const tokens = response.usage.promptTokens + response.usage.outputTokens;
  return {
    history: appendHistory(context.history, entries),
    lastSeq,
    // Counted as it happens, so the limits see the current turn's calls too.
    usage: recordUsage(context.usage, turn.startedAt, { modelCalls: 1, tokens }),
    turn: {
      ...turn,
      modelCalls: modelCall,
      step: calls.map((call) => ({ call })),
      usage: addUsage(turn.usage, response.usage),
    },
  };
}

/**
 * Calls of one model response that run: a model told (or tricked) to call a tool hundreds of
 * times would send that many requests out at once. Gemini's parallel calls are a handful.
 */
export const MAX_CALLS_PER_STEP = 16;

/**
 * Settles the calls that must not run: a `reply` after the turn already replied, a second
 * `reply` in the same step, and calls beyond `MAX_CALLS_PER_STEP`. The model learns why from
 * the error; every call still has an answer.
 */
export function refuseCallsNotToRun(context: ConversationContext): Partial<ConversationContext> {
  const turn = currentTurn(context);
  let replyAllowed = !turn.replied;
  const refused = (entry: StepCall, error: string): StepCall => ({
    ...entry,
    outcome: { callId: entry.call.id, name: entry.call.name, response: { error }, isError: true },
  });
  const step = turn.step.map((entry, index) => {
    if (index >= MAX_CALLS_PER_STEP)
      return refused(
        entry,
        `not run: at most ${MAX_CALLS_PER_STEP} calls of one response run; call the rest in the next step`,
      );
    if (entry.call.name !== REPLY_TOOL_NAME) return entry;
    if (replyAllowed) {
      replyAllowed = false;
      return entry;
    }
    return refused(entry, 'reply was already called in this turn; call reply only once per turn');
  });
  return { turn: { ...turn, step } };
}

/**
 * Records a call's outcome in the step. A result that would take the step's results past
 * `MAX_STEP_RESULT_BYTES` is kept as an error instead (the step's results are one history entry,
 * which must fit one stored item): the model hears how large it was and can ask for less.
 */
export function recordOutcome(
  context: ConversationContext,
  outcome: ToolOutcome,
): Partial<ConversationContext> {
  const turn = currentTurn(context);
  const kept = withinStepBudget(turn.step, outcome);
  const step = turn.step.map((entry) =>
    entry.call.id === outcome.callId ? { ...entry, outcome: kept } : entry,
  );
  return { turn: { ...turn, step } };
}

/**
 * Once every call of the step has its outcome: a reply written, or a skip decided, in the same
 * response as calls that failed came before their results. The reply is not sent, the skip not
 * taken, and the call says why, so the model answers again knowing them (a reminder that could
 * not be set, announced as set or left unsaid).
 */
export function holdBackFinalCalls(context: ConversationContext): Partial<ConversationContext> {
  const turn = currentTurn(context);
  if (!allCallsSettled(turn)) return {};
  return { turn: { ...turn, step: withFinalCallsHeldBack(turn.step) } };
}

/** Whether the turn answers messages other than reminders due (quiet ones aside). */
export function answersMoreThanReminders(context: ConversationContext): boolean {
  const reminderIds = new Set(remindersOfTurn(context).map((reminder) => reminder.eventId));
  return currentTurn(context).messages.some((message) => !message.quiet && !reminderIds.has(message.eventId));
}

/**
 * The reminders that came due in this turn: their event ids, their texts without the mark, and
 * how late they came when late enough to say so.
 */
export function remindersOfTurn(
  context: ConversationContext,
): { eventId: string; text: string; lateBy?: number }[] {
  const ids = new Set(context.turn?.messages.map((message) => message.eventId));
  return context.history.flatMap((entry) => {
    if (entry.role !== 'user' || entry.event !== 'reminder' || !ids.has(entry.eventId)) return [];
    const lateBy = reminderLateBy(entry);
    return [
      {
        eventId: entry.eventId,
        text: reminderTextOf(entry.text) ?? entry.text,
        ...(lateBy !== undefined && { lateBy }),
      },
    ];
  });
}

function withFinalCallsHeldBack(step: readonly StepCall[]): readonly StepCall[] {
  const isFinal = (name: string) => name === REPLY_TOOL_NAME || name === SKIP_TOOL_NAME;
  const failed = step
    .filter(({ call, outcome }) => !isFinal(call.name) && outcome?.isError)
    .map(({ call }) => call.name);
  if (failed.length === 0) return step;
  const names = [...new Set(failed)].join(', ');
  const why = (name: string) =>
    name === REPLY_TOOL_NAME
      ? `not sent: ${names} failed beside it; reply again with its result in mind`
      : `not taken: ${names} failed beside it; decide again with its result in mind`;
  return step.map((entry) =>
    isFinal(entry.call.name) && entry.outcome && !entry.outcome.isError
      ? {
          ...entry,
          outcome: {
            callId: entry.call.id,
            name: entry.call.name,
            response: { error: why(entry.call.name) },
            isError: true,
          },
        }
      : entry,
  );
}

/** The outcome as the tool gave it, when the step recorded a refusal in its place. */
export function refusedOutcome(turn: Turn | null, outcome: ToolOutcome): ToolOutcome | undefined {
  const recorded = turn?.step.find((entry) => entry.call.id === outcome.callId)?.outcome;
  return recorded === outcome ? undefined : outcome;
}

/** The outcome, or its refusal when the step's results already hold too much for it. */
export function withinStepBudget(step: readonly StepCall[], outcome: ToolOutcome): ToolOutcome {
  const bytes = outcomeBytes(outcome);
  const held = step.reduce((sum, entry) => sum + (entry.outcome ? outcomeBytes(entry.outcome) : 0), 0);
  if (held + bytes <= MAX_STEP_RESULT_BYTES) return outcome;
  const { callId, name } = outcome;
  const kib = (value: number) => Math.ceil(value / 1024);
  const error =
    `tool "${name}" returned ${kib(bytes)} KB, more than this step's results may still hold ` +
    `(${kib(MAX_STEP_RESULT_BYTES)} KB in all, ${kib(held)} KB taken): call it again in the next step`;
  return { callId, name, response: { error }, isError: true };
}

export function allCallsSettled(turn: Turn | null): boolean {
  return !!turn && turn.step.every((entry) => entry.outcome !== undefined);
}

/** Texts for the user from this step, once each (a tool's text and the model's reply may match). */
export function textsToDeliver(turn: Turn | null): string[] {
  const texts = (turn?.step ?? [])
    .map(({ outcome }) => outcome)
    // A blank text is none: LINE would show an empty bubble, or refuse the whole delivery.
    .filter((outcome) => outcome?.forUser?.trim() && !outcome.silent && !outcome.isError)
    .map((outcome) => outcome!.forUser!);
  return [...new Set(texts)];
}

/** After the `reply` service: on failure the model is told, through the calls' responses. */
export function recordDelivery(
  context: ConversationContext,
  delivered: boolean,
  sentMessageIds?: readonly string[],
): Partial<ConversationContext> {
  const turn = currentTurn(context);
  const step = turn.step.map((entry) => {
    const outcome = entry.outcome;
    if (!outcome?.forUser || outcome.silent || outcome.isError) return entry;
    if (delivered) {
      // The reply's ids, for a quote of it later; another tool's text is not the model's words.
      return sentMessageIds && entry.call.name === REPLY_TOOL_NAME
        ? { ...entry, outcome: { ...outcome, lineMessageIds: sentMessageIds } }
        : entry;
    }
    return {
      ...entry,
      outcome: { ...outcome, response: { error: 'the message could not be delivered' }, isError: true },
    };
  });
  const repliedNow = delivered && step.some(({ call }) => call.name === REPLY_TOOL_NAME);
  // The slot advances only on success: a failed delivery may have reached LINE all the same,
  // and the next try must carry the same retry key (docs/line.md, "Delivery policy").
  const { slotFailures = 0, ...rest } = turn;
  const slot = delivered
    ? { deliveries: turn.deliveries + 1 }
    : { deliveries: turn.deliveries, slotFailures: slotFailures + 1 };
  return { turn: { ...rest, step, ...slot, replied: turn.replied || repliedNow } };
}

/**
 * A step set aside: calls that never ran, and texts for the user that never went out (a step's
 * texts are delivered once all its calls settled), are answered as errors, so that history
 * stays whole (Gemini's turn rules) and says what did not happen.
 */
export function abandonStep(context: ConversationContext): Partial<ConversationContext> {
  const turn = currentTurn(context);
  const setAside = (entry: StepCall, what: string) => ({
    ...entry,
    outcome: {
      ...entry.outcome,
      callId: entry.call.id,
      name: entry.call.name,
      response: { error: `${what}: the turn was set aside after its process failed repeatedly` },
      isError: true,
    },
  });
  const step = turn.step.map((entry) => {
    if (!entry.outcome) return setAside(entry, 'not run');
    const undelivered = entry.outcome.forUser && !entry.outcome.silent && !entry.outcome.isError;
    return undelivered ? setAside(entry, 'not delivered') : entry;
  });
  return { turn: { ...turn, step } };
}

/** Appends the step's function responses to history, in call order. */
export function closeStep(context: ConversationContext): Partial<ConversationContext> {
  const turn = currentTurn(context);
  if (turn.step.length === 0) return {};
  const results = turn.step.map(({ call, outcome }) => ({
    callId: call.id,
    name: call.name,
    response: outcome?.response ?? { error: 'no result' },
    ...(outcome?.lineMessageIds && { lineMessageIds: outcome.lineMessageIds }),
  }));
  const { entries, lastSeq } = sequenced(context, [{ role: 'tool', turnId: turn.id, results }]);
  return { history: appendHistory(context.history, entries), lastSeq };
}

export function finishTurn(
  context: ConversationContext,
  stopReason: StopReason,
): Partial<ConversationContext> {
  const turn = currentTurn(context);
  return {
    turn: null,
    history: boundedHistory(context, context.history),
    lastTurn: {
      id: turn.id,
      stopReason,
      modelCalls: turn.modelCalls,
      usage: turn.usage,
      startedAt: turn.startedAt,
      replied: turn.replied,
      deliveries: turn.deliveries,
      noticeSent: turn.noticeSent === true,
    },
  };
}

/** A message the host set aside stands as the last turn: no model call, at most its notice. */
export function quarantinedTurn(event: { eventId: string; at: number; noticeSent: boolean }): TurnSummary {
  return {
    id: event.eventId,
    stopReason: 'quarantined',
    modelCalls: 0,
    usage: { promptTokens: 0, outputTokens: 0, cachedTokens: 0 },
    startedAt: event.at,
    replied: false,
    deliveries: event.noticeSent ? 1 : 0,
    noticeSent: event.noticeSent,
  };
}

export function currentTurn(context: ConversationContext): Turn {
  if (!context.turn) throw new Error('no turn in progress');
  return context.turn;
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
  };
}

/** The oldest whole exchanges go first; a function call never loses its response. */
function boundedHistory(
  context: ConversationContext,
  history: readonly SequencedEntry[],
): readonly SequencedEntry[] {
  return boundHistory(history, {
    maxEntries: context.settings.maxHistoryEntries,
    maxBytes: context.settings.maxHistoryBytes,
  });
}
