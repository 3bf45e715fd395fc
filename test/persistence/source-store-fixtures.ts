import type {
  Clock,
  ForgetEvent,
  HistoryEntry,
  InboundMessage,
  ModelEntry,
  ToolEntry,
  UnsendEvent,
  UserEntry,
} from '../../src/domain/index.js';
import type {
  Checkpoint,
  HistoryRecord,
  HistoryWindow,
  Ownership,
  SourceOwner,
} from '../../src/persistence/index.js';

// Builders shared by the source store conformance suite, its crash scenarios and the
// adapter-specific tests (no vitest import: child processes load this too).

/** A clock the test moves by hand. */
export interface TestClock extends Clock {
  advance(ms: number): void;
}

export function testClock(start = 1_800_000_000_000): TestClock {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

export const CLAIM_TTL_MS = 3_600_000;
export const LEASE_MS = 30_000;
export const WIDE: HistoryWindow = { maxEntries: 10_000, maxBytes: 100_000_000 };
export const neverGone = () => false;

let counter = 0;
export function message(sourceId: string, text: string): InboundMessage {
  counter++;
  return {
    eventId: `evt-${counter}-${text.replace(/\W/g, '')}`,
    source: { kind: 'user', id: sourceId },
    text,
    timestamp: 1_700_000_000_000 + counter,
  };
}

/** The user takes back the message LINE knows as `messageId`. */
export function unsendEvent(sourceId: string, messageId: string): UnsendEvent {
  counter++;
  return {
    kind: 'unsend',
    eventId: `unsend-${counter}`,
    source: { kind: 'user', id: sourceId },
    timestamp: 1_700_000_000_000 + counter,
    messageId,
  };
}

export function forgetEvent(sourceId: string): ForgetEvent {
  counter++;
  return {
    kind: 'forget',
    eventId: `forget-${counter}`,
    source: { kind: 'user', id: sourceId },
    timestamp: 1_700_000_000_000 + counter,
    reason: 'unfollow',
  };
}

export const user = (text: string): UserEntry => ({
  role: 'user',
  eventId: `u-${text}`,
  text,
  timestamp: 1_700_000_000_000,
});
export const model = (turnId: string, callIds: string[], signature = ''): ModelEntry => ({
  role: 'model',
  turnId,
  calls: callIds.map((id) => ({ id, name: 'reply', args: { message: `answer ${id}` } })),
  ...(signature && { providerParts: [{ thoughtSignature: signature }] }),
});
export const tool = (turnId: string, callIds: string[]): ToolEntry => ({
  role: 'tool',
  turnId,
  results: callIds.map((callId) => ({ callId, name: 'reply', response: { sent: true } })),
});
/** A reply turn as it lands in history: three entries. */
export const exchange = (n: number, signature = ''): HistoryEntry[] => [
  user(`message ${n}`),
  model(`t${n}`, [`c${n}`], signature),
  tool(`t${n}`, [`c${n}`]),
];

export function owner(name: string, clock: Clock, leaseMs = LEASE_MS): SourceOwner {
  return {
    ownerId: `${name}-owner`,
    host: 'test-host',
    pid: 1000 + name.length,
    heartbeatAt: clock.now(),
    leaseMs,
  };
}

export function records(from: number, entries: readonly HistoryEntry[]): HistoryRecord[] {
  return entries.map((entry, index) => ({ seq: from + index, entry }));
}

export function checkpointOf(ownership: Ownership, overrides: Partial<Checkpoint> = {}): Checkpoint {
  return {
    ownership,
    expectedVersion: ownership.version,
    machineVersion: 7,
    snapshot: { value: 'idle', context: { turn: null } },
    busy: false,
    appended: [],
    removedSeqs: [],
    consumedKeys: [],
    ...overrides,
  };
}
