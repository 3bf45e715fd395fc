import type { ConversationContext, Turn, UsageRecord } from './conversation-types.js';

const MINUTE = 60_000;
const DAY = 24 * 3600_000;

export type LimitKind = 'model-calls-per-minute' | 'daily-token-budget';

/** Which limit, if any, one more model call would break (the current turn's calls count too). */
export function limitReached(context: ConversationContext, now: number): LimitKind | undefined {
  const { maxModelCallsPerMinute, dailyTokenBudget } = context.settings;
  const turn = context.turn;
  const lastMinute = context.usage.filter((record) => now - record.at < MINUTE);
  const callsInMinute =
    lastMinute.reduce((sum, record) => sum + record.modelCalls, 0) + (turn?.modelCalls ?? 0);
  if (maxModelCallsPerMinute > 0 && callsInMinute >= maxModelCallsPerMinute) return 'model-calls-per-minute';
  const today = context.usage.filter((record) => now - record.at < DAY);
  const tokens = today.reduce((sum, record) => sum + record.tokens, 0) + (turn ? tokensOf(turn) : 0);
  if (dailyTokenBudget > 0 && tokens >= dailyTokenBudget) return 'daily-token-budget';
  return undefined;
}

/** Adds a finished turn to the usage log, keeping only the last day. */
export function recordUsage(usage: readonly UsageRecord[], turn: Turn): UsageRecord[] {
  const record: UsageRecord = { at: turn.startedAt, modelCalls: turn.modelCalls, tokens: tokensOf(turn) };
  return [...usage.filter((entry) => turn.startedAt - entry.at < DAY), record];
}

function tokensOf(turn: Turn): number {
  return turn.usage.promptTokens + turn.usage.outputTokens;
}
