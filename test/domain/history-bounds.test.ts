import { describe, expect, it } from 'vitest';
import {
  appendHistory,
  boundHistory,
  collectHistoryWindow,
  defaultHistoryLimits,
  type HistoryEntry,
  type HistoryLimits,
  type JsonObject,
  type ModelEntry,
  type ToolEntry,
  type UserEntry,
} from '../../src/domain/index.js';

const ITEM_CEILING = 350 * 1024;

let sequence = 0;
const user = (text: string): UserEntry => ({
  role: 'user',
  eventId: `e${++sequence}`,
  sender: { userId: 'U1', displayName: 'ユーザー' },
  text,
  timestamp: 1_700_000_000_000 + sequence,
});
const model = (turnId: string, callIds: string[] = [], text?: string): ModelEntry => ({
  role: 'model',
  turnId,
  ...(text !== undefined && { text }),
  calls: callIds.map((id) => ({ id, name: 'reply', args: { message: `answer ${id}` } })),
});
const tool = (turnId: string, callIds: string[], response: JsonObject = { sent: true }): ToolEntry => ({
  role: 'tool',
  turnId,
  results: callIds.map((callId) => ({ callId, name: 'reply', response })),
});
/** A user message answered through the reply tool: three entries. */
const exchange = (n: number, text = `message ${n}`): HistoryEntry[] => [
  user(text),
  model(`t${n}`, [`c${n}`]),
  tool(`t${n}`, [`c${n}`]),
];
const bytes = (history: readonly HistoryEntry[]) => Buffer.byteLength(JSON.stringify(history), 'utf8');
const roles = (history: readonly HistoryEntry[]) => history.map((entry) => entry.role);

describe('boundHistory', () => {
  it('returns a copy of the history unchanged when it is within both limits', () => {
    const history = [...exchange(1), ...exchange(2)];

    const bounded = boundHistory(history, { maxEntries: 6, maxBytes: bytes(history) });

    expect(bounded).toEqual(history);
    expect(bounded).not.toBe(history);
  });

  it('drops the oldest whole exchanges until the entry count holds', () => {
    const exchanges = [1, 2, 3, 4].map((n) => exchange(n));

    const bounded = boundHistory(exchanges.flat(), { maxEntries: 8, maxBytes: 1_000_000 });

    // 8 entries would start inside exchange 2: only whole exchanges 3 and 4 remain.
    expect(bounded).toEqual([...exchanges[2]!, ...exchanges[3]!]);
  });

  it('drops the oldest whole exchanges until the serialised size holds, to the byte', () => {
    const exchanges = [1, 2, 3].map((n) => exchange(n, 'あ'.repeat(100)));
    const lastTwo = [...exchanges[1]!, ...exchanges[2]!];

    expect(boundHistory(exchanges.flat(), { maxEntries: 100, maxBytes: bytes(lastTwo) })).toEqual(lastTwo);
    expect(boundHistory(exchanges.flat(), { maxEntries: 100, maxBytes: bytes(lastTwo) - 1 })).toEqual(
      exchanges[2],
    );
  });

  it('never cuts between function calls and the tool entry answering them', () => {
    // A second user message arrived while the call c1 was running; it was answered after.
    const history: HistoryEntry[] = [
      user('first'),
      model('t0', [], 'thinking'),
      user('weather?'),
      model('t1', ['c1']),
      user('and tomorrow?'),
      tool('t1', ['c1'], { forecast: 'sunny' }),
      model('t1', ['c2']),
      tool('t1', ['c2']),
      user('thanks'),
      model('t2', ['c3']),
      tool('t2', ['c3']),
    ];

    const bounded = boundHistory(history, { maxEntries: 7, maxBytes: 1_000_000 });

    // Cutting at "and tomorrow?" (7 entries) would orphan c1's answer: the cut moves on to "thanks".
    expect(bounded).toEqual(history.slice(8));
  });

  it('keeps the newest exchange even when it alone exceeds a limit, and calls still unanswered with it', () => {
    const history: HistoryEntry[] = [
      ...exchange(1),
      user('look this up'),
      model('t2', ['c2']), // the turn in progress: c2 has no answer yet
      user('queued meanwhile'),
    ];

    const bounded = boundHistory(history, { maxEntries: 1, maxBytes: 10 });

    expect(roles(bounded)).toEqual(['user', 'model', 'user']);
    expect(bounded[0]).toEqual(history[3]);
  });

  it('starts at a user entry even when the whole history fits (an unsend took the first one)', () => {
    const history: HistoryEntry[] = [model('t0', [], 'hello'), ...exchange(1)];

    const bounded = boundHistory(history, { maxEntries: 100, maxBytes: 1_000_000 });

    expect(bounded).toEqual(history.slice(1));
  });

  it('never cuts before an answer whose call lies outside the history (a window read from the store)', () => {
    // c0 was made before this part of the history: the answer must keep its call, so no cut before it.
    const history: HistoryEntry[] = [user('inside the turn'), tool('t0', ['c0']), ...exchange(1)];

    const bounded = boundHistory(history, { maxEntries: 100, maxBytes: 1_000_000 });

    expect(bounded).toEqual(history.slice(2));
  });

  it('holds its invariants on random conversations: a suffix, whole exchanges, limits met, nothing dropped needlessly', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 300; round++) {
      const history = randomConversation(random, 1 + Math.floor(random() * 40));
      const limits: HistoryLimits = {
        maxEntries: 1 + Math.floor(random() * 60),
        maxBytes: 100 + Math.floor(random() * 8_000),
      };

      const bounded = boundHistory(history, limits);
      const start = history.length - bounded.length;

      expect(history.slice(start)).toEqual(bounded);
      if (start === 0) continue;
      expect(bounded[0]?.role).toBe('user');
      expectEveryAnswerWithItsCall(bounded);
      const withinLimits = bounded.length <= limits.maxEntries && bytes(bounded) <= limits.maxBytes;
      // Over a limit only when no later cut exists: the newest exchange stays whole.
      const laterCut = bounded.some(
        (entry, index) => index > 0 && entry.role === 'user' && answersFollowCalls(history, start + index),
      );
      expect(withinLimits || !laterCut).toBe(true);
      // Maximal: the previous user entry would have broken a limit or split a call.
      const previous = history.slice(0, start).findLastIndex((entry) => entry.role === 'user');
      if (previous >= 0 && withinLimits) {
        const longer = history.slice(previous);
        const longerFits = longer.length <= limits.maxEntries && bytes(longer) <= limits.maxBytes;
        expect(longerFits && answersFollowCalls(history, previous)).toBe(false);
      }
    }
  });

  it('keeps a 10,000-message conversation far below the 350 KB item ceiling', () => {
    const random = seededRandom(42);
    const history: HistoryEntry[] = [];
    for (let n = 1; n <= 10_000; n++) history.push(...realisticExchange(random, n));

    const bounded = boundHistory(history, defaultHistoryLimits);
    const snapshotJson = JSON.stringify(snapshotLike(bounded));

    expect(bytes(history)).toBeGreaterThan(5_000_000);
    expect(bounded.length).toBeLessThanOrEqual(defaultHistoryLimits.maxEntries);
    expect(bytes(bounded)).toBeLessThanOrEqual(defaultHistoryLimits.maxBytes);
    expect(Buffer.byteLength(snapshotJson, 'utf8')).toBeLessThan(ITEM_CEILING);
    expect(bounded[0]?.role).toBe('user');
    const newest = bounded.findLast((entry) => entry.role === 'user');
    expect(newest?.role === 'user' && newest.text.startsWith('#10000 ')).toBe(true);
    expectEveryAnswerWithItsCall(bounded);
  });

  it('bounding after every turn keeps the same history as bounding once at the end', () => {
    const random = seededRandom(3);
    let kept: HistoryEntry[] = [];
    const all: HistoryEntry[] = [];
    for (let n = 1; n <= 2_000; n++) {
      const entries = realisticExchange(random, n);
      all.push(...entries);
      kept = boundHistory([...kept, ...entries], defaultHistoryLimits);
      expect(Buffer.byteLength(JSON.stringify(snapshotLike(kept)), 'utf8')).toBeLessThan(ITEM_CEILING);
    }

    expect(kept).toEqual(boundHistory(all, defaultHistoryLimits));
  });

  it('bounds a history grown with appendHistory, entry by entry, exactly as the same history built by hand', () => {
    const random = seededRandom(11);
    for (let round = 0; round < 200; round++) {
      const limits: HistoryLimits = {
        maxEntries: 1 + Math.floor(random() * 60),
        maxBytes: 100 + Math.floor(random() * 8_000),
      };
      // Answers whose calls lie before the history, now and then (a window read from the store).
      const start: HistoryEntry[] = random() < 0.3 ? [user('before'), tool('t-old', ['c-old'])] : [];
      let grown = boundHistory(start, limits);
      let plain = boundHistory(start, limits);
      const conversation = randomConversation(random, 1 + Math.floor(random() * 30));
      // Now and then an answer to a call the history never held: no cut may fall before it.
      if (random() < 0.3)
        conversation.splice(Math.floor(random() * conversation.length), 0, tool('t-x', ['c-x']));
      for (const entry of conversation) {
        const bound = entry.role === 'user' || random() < 0.3;
        grown = appendHistory(grown, [entry]);
        plain = [...plain, entry];
        if (bound) {
          grown = boundHistory(grown, limits);
          plain = boundHistory([...plain], limits);
        }
        expect(grown).toEqual(plain);
      }
      expect(boundHistory(grown, limits)).toEqual(boundHistory([...plain], limits));
    }
  });

  it('stays below the ceiling in the worst case: every message and reply at LINE’s 5,000 characters, in Japanese', () => {
    const history: HistoryEntry[] = [];
    for (let n = 1; n <= 10_000; n++) {
      history.push(user(`#${n} ${'語'.repeat(5_000)}`), {
        role: 'model',
        turnId: `t${n}`,
        calls: [{ id: `c${n}`, name: 'reply', args: { message: '答'.repeat(5_000) } }],
      });
      history.push(tool(`t${n}`, [`c${n}`]));
    }

    const bounded = boundHistory(history, defaultHistoryLimits);

    expect(bytes(bounded)).toBeLessThanOrEqual(defaultHistoryLimits.maxBytes);
    expect(Buffer.byteLength(JSON.stringify(snapshotLike(bounded)), 'utf8')).toBeLessThan(ITEM_CEILING);
  });
});

describe('collectHistoryWindow: the window of a stored history, read newest first', () => {
  const sized = (entry: HistoryEntry) => ({ entry, bytes: Buffer.byteLength(JSON.stringify(entry), 'utf8') });

  it('returns the window boundHistory keeps, oldest first, reading no more than the limits and one entry', () => {
    const random = seededRandom(11);
    for (let round = 0; round < 300; round++) {
      const history = randomConversation(random, 1 + Math.floor(random() * 40));
      const limits: HistoryLimits = {
        maxEntries: 1 + Math.floor(random() * 60),
        maxBytes: 100 + Math.floor(random() * 8_000),
      };
      let read = 0;
      const newestFirst = function* () {
        for (let index = history.length - 1; index >= 0; index--) {
          read++;
          yield history[index]!;
        }
      };

      const window = collectHistoryWindow(newestFirst(), sized, limits);

      expect(window).toEqual(boundHistory(history, limits));
      const withinLimits = window.length <= limits.maxEntries && bytes(window) <= limits.maxBytes;
      if (withinLimits) expect(read).toBeLessThanOrEqual(limits.maxEntries + 1);
    }
  });

  it('reads a 10,000-message history only as far as its window', () => {
    const random = seededRandom(5);
    const history: HistoryEntry[] = [];
    for (let n = 1; n <= 10_000; n++) history.push(...realisticExchange(random, n));
    let read = 0;
    const newestFirst = history.toReversed().map((entry) => {
      return { entry, count: () => read++ };
    });

    const window = collectHistoryWindow(
      newestFirst,
      (record) => {
        record.count();
        return sized(record.entry);
      },
      defaultHistoryLimits,
    );

    expect(window.map((record) => record.entry)).toEqual(boundHistory(history, defaultHistoryLimits));
    expect(read).toBeLessThanOrEqual(defaultHistoryLimits.maxEntries + 1);
  });

  it('reads further back than the limits only to keep the newest exchange whole', () => {
    const history: HistoryEntry[] = [
      ...exchange(1),
      user('a long question'),
      model('t2', ['c2']),
      tool('t2', ['c2']),
    ];

    const window = collectHistoryWindow(history.toReversed(), sized, { maxEntries: 1, maxBytes: 10 });

    expect(window).toEqual(history.slice(3));
  });
});

/** Every tool result answers a call made earlier in the same history. */
function expectEveryAnswerWithItsCall(history: readonly HistoryEntry[]) {
  const calls = new Set<string>();
  for (const entry of history) {
    if (entry.role === 'model') for (const call of entry.calls) calls.add(call.id);
    if (entry.role === 'tool')
      for (const result of entry.results) expect(calls.has(result.callId)).toBe(true);
  }
}

/** Whether cutting at `start` leaves no answer without its call and no call made before without its answer. */
function answersFollowCalls(history: readonly HistoryEntry[], start: number): boolean {
  const before = new Set(
    history
      .slice(0, start)
      .flatMap((entry) => (entry.role === 'model' ? entry.calls.map((call) => call.id) : [])),
  );
  const answeredBefore = new Set(
    history
      .slice(0, start)
      .flatMap((entry) => (entry.role === 'tool' ? entry.results.map((r) => r.callId) : [])),
  );
  return [...before].every((callId) => answeredBefore.has(callId));
}

/** A conversation with merged turns, multi-step tool use, calls answered late and a turn in progress. */
function randomConversation(random: () => number, turns: number): HistoryEntry[] {
  const history: HistoryEntry[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const users = 1 + Math.floor(random() * 2);
    for (let index = 0; index < users; index++) history.push(user('x'.repeat(Math.floor(random() * 300))));
    const steps = Math.floor(random() * 3);
    for (let step = 0; step < steps; step++) {
      const callIds = Array.from(
        { length: 1 + Math.floor(random() * 2) },
        (_, index) => `r${turn}-${step}-${index}`,
      );
      history.push(model(`t${turn}`, callIds));
      if (random() < 0.2) history.push(user('arrived while the tools ran'));
      if (turn === turns - 1 && step === steps - 1 && random() < 0.3) break; // still running
      history.push(tool(`t${turn}`, callIds, { data: 'y'.repeat(Math.floor(random() * 500)) }));
    }
    if (steps === 0) history.push(model(`t${turn}`, [], 'plain text'));
  }
  return history;
}

const phrases = [
  'こんにちは',
  '天気はどう？',
  'ありがとう 🙏',
  'See you tomorrow',
  '明日の予定を教えて',
  '了解です',
];

/** A user message, sometimes a weather lookup, and a reply: the shapes a real turn leaves. */
function realisticExchange(random: () => number, n: number): HistoryEntry[] {
  const pick = () => phrases[Math.floor(random() * phrases.length)]!;
  const text = `#${n} ${Array.from({ length: 1 + Math.floor(random() * 30) }, pick).join(' ')}`;
  const turnId = `turn-${n}`;
  const entries: HistoryEntry[] = [user(text)];
  if (random() < 0.2) {
    entries.push(
      {
        role: 'model',
        turnId,
        calls: [{ id: `${turnId}-w`, name: 'get_weather', args: { location: 'Tokyo' } }],
      },
      {
        role: 'tool',
        turnId,
        results: [
          {
            callId: `${turnId}-w`,
            name: 'get_weather',
            response: { summary: 'sunny', temperatureC: 21, details: 'z'.repeat(800) },
          },
        ],
      },
    );
  }
  const reply = Array.from({ length: 1 + Math.floor(random() * 40) }, pick).join(' ');
  entries.push(
    { role: 'model', turnId, calls: [{ id: `${turnId}-r`, name: 'reply', args: { message: reply } }] },
    tool(turnId, [`${turnId}-r`]),
  );
  return entries;
}

/** The shape of a persisted conversation snapshot around its history. */
function snapshotLike(history: readonly HistoryEntry[]): JsonObject {
  return {
    status: 'active',
    value: 'idle',
    historyValue: {},
    children: {},
    context: {
      source: { kind: 'user', id: `U${'0'.repeat(32)}` },
      settings: { maxModelCalls: 10, queuePolicy: 'queue', maxQueuedTurns: 20, apology: 'Sorry.' },
      history: history as unknown as JsonObject[],
      pending: [],
      turn: null,
      lastTurn: { id: 'x'.repeat(32), stopReason: 'final-tool', modelCalls: 2, startedAt: 0, usage: {} },
      recentEventIds: Array.from({ length: 200 }, (_, index) => `01J${String(index).padStart(23, '0')}`),
    },
  };
}

/** mulberry32: the same "random" conversations on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
