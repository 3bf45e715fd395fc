/** Why the messages of a turn got no answer from the model. */
export type NoAnswerReason = 'skip' | 'limit' | 'failure' | 'quarantine';

/** How a source's last turn ended, as the inspector's source list shows it. */
export interface TurnOutcome {
  readonly turnId: string | null;
  readonly startedAt: number | null;
  readonly stopReason: string;
  /** Null for a summary stored before kaiwa kept whether it replied. */
  readonly answered: boolean | null;
  /** When not answered: the model's deliberate skip, a limit, a failure, or a message set aside. */
  readonly noAnswer?: NoAnswerReason;
  /** When not answered: whether a notice (limit, apology, set aside) went out instead. */
  readonly noticeSent?: boolean;
}

interface LooseTurnSummary {
  id?: unknown;
  startedAt?: unknown;
  stopReason?: unknown;
  replied?: unknown;
  deliveries?: unknown;
  noticeSent?: unknown;
}

const noAnswerReasons: Readonly<Record<string, NoAnswerReason>> = {
  // A final tool without a reply: the model chose `skip`.
  'final-tool': 'skip',
  'limit-reached': 'limit',
  'model-call-limit': 'limit',
  'inbox-full': 'limit',
  'model-failed': 'failure',
  'no-function-calls': 'failure',
  // Set aside: a turn whose resumption kept killing its process, or a message whose turns did.
  abandoned: 'quarantine',
  quarantined: 'quarantine',
};

/** The outcome of a conversation's `lastTurn` (read defensively: it may be stored by an older kaiwa). */
export function turnOutcome(lastTurn: unknown): TurnOutcome | undefined {
  if (typeof lastTurn !== 'object' || lastTurn === null) return undefined;
  const summary = lastTurn as LooseTurnSummary;
  if (typeof summary.stopReason !== 'string') return undefined;
  const base = {
    turnId: typeof summary.id === 'string' ? summary.id : null,
    startedAt: typeof summary.startedAt === 'number' ? summary.startedAt : null,
    stopReason: summary.stopReason,
  };
  if (typeof summary.replied !== 'boolean') return { ...base, answered: null };
  if (summary.replied) return { ...base, answered: true };
  const deliveries = typeof summary.deliveries === 'number' ? summary.deliveries : 0;
  // Stored before kaiwa said so: a delivery without a reply was always a notice.
  const noticeSent = typeof summary.noticeSent === 'boolean' ? summary.noticeSent : deliveries > 0;
  // More went out than the notice: a tool's own message reached the user.
  if (deliveries > (noticeSent ? 1 : 0)) return { ...base, answered: true };
  return {
    ...base,
    answered: false,
    noAnswer: noAnswerReasons[summary.stopReason] ?? 'failure',
    noticeSent,
  };
}
