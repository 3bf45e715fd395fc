import type { ConversationContext, LimitKind, LimitNotice, UsageBucket } from './conversation-types.js';

const MINUTE = 60_000;
const DAY = 24 * 3600_000;

/**
 * Which limit, if any, one more model call would break (every call made so far is in the
 * buckets, the current turn's included).
 * Model calls in the last minute are estimated from two fixed minute buckets — this one in
 * full, the one before weighted by how much of it still lies within the last 60 s — so a
 * burst across a minute boundary is not let through twice. Tokens count per calendar day (UTC).
 */
export function limitReached(context: ConversationContext, now: number): LimitKind | undefined {
  const { maxModelCallsPerMinute, dailyTokenBudget } = context.settings;
  if (maxModelCallsPerMinute > 0) {
    const minuteStart = periodStart(now, MINUTE);
    const current = bucketAt(context.usage, 'minute', minuteStart)?.modelCalls ?? 0;
    const previous = bucketAt(context.usage, 'minute', minuteStart - MINUTE)?.modelCalls ?? 0;
    const overlap = 1 - (now - minuteStart) / MINUTE;
    const callsInMinute = current + previous * overlap;
    if (callsInMinute >= maxModelCallsPerMinute) return 'model-calls-per-minute';
  }
  if (dailyTokenBudget > 0) {
    const today = bucketAt(context.usage, 'day', periodStart(now, DAY))?.tokens ?? 0;
    if (today >= dailyTokenBudget) return 'daily-token-budget';
  }
  return undefined;
}

/**
 * The notice of a limit found reached at `at`: it may go out again after a minute for the
 * per-minute limit, on the next UTC day for the daily budget.
 */
export function limitNoticeAt(limit: LimitKind, at: number): LimitNotice {
  const until = limit === 'model-calls-per-minute' ? at + MINUTE : periodStart(at, DAY) + DAY;
  return { limit, at, until };
}

/** Whether the chat was told of this limit within its period already. */
export function toldAlready(told: LimitNotice | undefined, reached: LimitNotice): boolean {
  return told !== undefined && told.limit === reached.limit && reached.at < told.until;
}

/** What one model call cost. */
export interface UsageCost {
  readonly modelCalls: number;
  readonly tokens: number;
}

/**
 * Adds a model call's cost to the buckets of the minute and the day its turn started in
 * (`at`), and drops the buckets no limit reads any more. The result holds at most three.
 */
export function recordUsage(usage: readonly UsageBucket[], at: number, cost: UsageCost): UsageBucket[] {
  const minutes = addTo(usage, 'minute', periodStart(at, MINUTE), cost);
  const days = addTo(usage, 'day', periodStart(at, DAY), cost);
  const latestMinute = Math.max(...minutes.map((bucket) => bucket.start));
  const latestDay = Math.max(...days.map((bucket) => bucket.start));
  return [
    ...minutes.filter((bucket) => bucket.start >= latestMinute - MINUTE),
    ...days.filter((bucket) => bucket.start === latestDay),
  ].sort((a, b) => a.period.localeCompare(b.period) || a.start - b.start);
}

function addTo(
  usage: readonly UsageBucket[],
  period: UsageBucket['period'],
  start: number,
  cost: UsageCost,
): UsageBucket[] {
  const buckets = usage.filter((bucket) => bucket.period === period);
  const existing = buckets.find((bucket) => bucket.start === start);
  if (!existing) return [...buckets, { period, start, ...cost }];
  return buckets.map((bucket) =>
    bucket === existing
      ? {
          ...bucket,
          modelCalls: bucket.modelCalls + cost.modelCalls,
          tokens: bucket.tokens + cost.tokens,
        }
      : bucket,
  );
}

function bucketAt(usage: readonly UsageBucket[], period: UsageBucket['period'], start: number) {
  return usage.find((bucket) => bucket.period === period && bucket.start === start);
}

function periodStart(at: number, length: number): number {
  return Math.floor(at / length) * length;
}
