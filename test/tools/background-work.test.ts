import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { InboundMessage } from '../../src/domain/index.js';
import {
  BackgroundWork,
  finishedMessage,
  INTERRUPTED_OUTCOME,
  ToolRegistry,
  type BackgroundCall,
  type BackgroundLedger,
} from '../../src/tools/index.js';
import { MemorySourceStore, openSqliteSourceStore } from '../../src/persistence/index.js';
import { BACKGROUND_FILE_NAME } from '../../src/server/kaiwa-runtime.js';
import { SqliteBackgroundLedger } from '../../src/server/sqlite-background-ledger.js';
import { storedHistory, userTexts } from '../support/host-harness.js';
import { startKaiwaWithFakeLine } from '../support/kaiwa-under-test.js';
import { recordingLogger } from '../support/recording-logger.js';
import { reportModel, reportTool } from '../support/report-tool.js';
import { killMidBackgroundWork } from './support/kill-mid-background-work.js';
import { textMessageEvent, unfollowEvent, userId, webhookBody } from '../support/webhook-fixtures.js';

const source = { kind: 'user' as const, id: 'U' + '4'.repeat(32) };
const call: BackgroundCall = {
  toolName: 'render_report',
  source,
  sender: { userId: source.id, displayName: 'Aiko' },
  idempotencyKey: 'turn-1:call-1',
};

/** A ledger in memory, as the SQLite one in `DATA_DIR` keeps it across a crash. */
class MemoryLedger implements BackgroundLedger {
  private readonly calls = new Map<string, BackgroundCall>();
  note(noted: BackgroundCall) {
    this.calls.set(noted.idempotencyKey, noted);
    return Promise.resolve();
  }
  strike(struck: BackgroundCall) {
    this.calls.delete(struck.idempotencyKey);
    return Promise.resolve();
  }
  leftBehind() {
    return Promise.resolve([...this.calls.values()]);
  }
  keys() {
    return [...this.calls.keys()];
  }
}

function backgroundWork(
  options: {
    timeoutMs?: number;
    maxBytes?: number;
    deliver?: (message: InboundMessage) => Promise<unknown>;
    ledger?: BackgroundLedger;
    redeliverDelaysMs?: readonly number[];
  } = {},
) {
  const delivered: InboundMessage[] = [];
  const { lines, logger } = recordingLogger();
  const work = new BackgroundWork({
    ...(options.ledger && { ledger: options.ledger }),
    deliver: options.deliver ?? ((message) => Promise.resolve(delivered.push(message))),
    timeoutMs: options.timeoutMs ?? 60_000,
    maxBytes: options.maxBytes ?? 32 * 1024,
    clock: { now: () => 1_800_000_000_000 },
    logger,
    // No waits unless a test is about them: a refused outcome is then given up at once.
    redeliverDelaysMs: options.redeliverDelaysMs ?? [],
  });
  return { work, delivered, lines };
}

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('background work', () => {
  it('hands what the work resolved to to the inbox as a toolFinished event of whoever made the call', async () => {
    const { work, delivered } = backgroundWork();

    await work.start(call, later(20, { url: 'https://example.com/report.pdf', pages: 3 }));
    expect(work.pending).toBe(1);
    await work.settled();

    expect(work.pending).toBe(0);
    expect(delivered).toEqual([
      {
        eventId: expect.stringMatching(new RegExp(`^tool:${source.id}:[0-9a-f]{32}$`)) as string,
        source,
        sender: { userId: source.id },
        text: 'render_report: {"url":"https://example.com/report.pdf","pages":3}',
        timestamp: 1_800_000_000_000,
        lineEvent: 'toolFinished',
      },
    ]);
  });

  it('names the inbox item after the call: the same call finishing twice is one item, another call another', () => {
    const first = finishedMessage(call, { a: 1 }, 1);
    expect(finishedMessage(call, { a: 2 }, 2).eventId).toBe(first.eventId);
    expect(finishedMessage({ ...call, idempotencyKey: 'turn-1:call-2' }, { a: 1 }, 1).eventId).not.toBe(
      first.eventId,
    );
    const otherSource = { kind: 'group' as const, id: 'C' + '4'.repeat(32) };
    expect(finishedMessage({ ...call, source: otherSource }, { a: 1 }, 1).eventId).not.toBe(first.eventId);
  });

  it.each<[string, () => PromiseLike<unknown>, string, string]>([
    [
      'rejects',
      () => Promise.reject(new Error('render farm on fire')),
      'the background work failed',
      'background work failed',
    ],
    [
      'resolves to no object',
      () => Promise.resolve('done'),
      'the background work finished with a result that could not be read',
      'background work finished with no plain JSON object',
    ],
    [
      'resolves to a class instance',
      () => Promise.resolve(new Map()),
      'the background work finished with a result that could not be read',
      'background work finished with no plain JSON object',
    ],
    [
      'resolves to too much',
      () => Promise.resolve({ text: 'x'.repeat(200) }),
      "the background work's result was 211 bytes, more than the 100 allowed",
      'background work finished with too large a result',
    ],
  ])(
    'tells the turn it failed when the work %s, the details only in the log',
    async (_case, run, error, logged) => {
      const { work, delivered, lines } = backgroundWork({ maxBytes: 100 });

      await work.start(call, run());
      await work.settled();

      expect(delivered.map((message) => message.text)).toEqual([
        `render_report: ${JSON.stringify({ error })}`,
      ]);
      expect(lines.find((line) => line.message === logged)).toMatchObject({
        tool: 'render_report',
        sourceId: source.id,
      });
      expect(JSON.stringify(delivered)).not.toContain('render farm on fire');
    },
  );

  it('tells the turn it timed out when the work never settles', async () => {
    const { work, delivered } = backgroundWork({ timeoutMs: 1_000 });

    await work.start(call, new Promise(() => undefined));
    await work.settled();

    expect(delivered.map((message) => message.text)).toEqual([
      'render_report: {"error":"the background work did not finish within 1 second"}',
    ]);
  });

  it('stops waiting after the time it was given, the work left running', async () => {
    const { work, delivered } = backgroundWork();

    await work.start(call, later(300, { done: true }));
    await work.settled(20);
    expect(work.pending).toBe(1);
    expect(delivered).toEqual([]);

    await work.settled();
    expect(delivered).toHaveLength(1);
  });

  it("drops only the forgotten source's work", async () => {
    const { work, delivered } = backgroundWork();
    const group = { kind: 'group' as const, id: 'C' + '4'.repeat(32) };

    await work.start(call, later(20, { n: 1 }));
    await work.start({ ...call, source: group, idempotencyKey: 'turn-2:call-1' }, later(20, { n: 2 }));
    work.abandon(source.id);
    await work.settled();

    expect(delivered.map((message) => [message.source.id, message.text])).toEqual([
      [group.id, 'render_report: {"n":2}'],
    ]);
  });

  it('reports each piece still running as interrupted when its process stops, and drops what finishes after', async () => {
    const { work, delivered } = backgroundWork();
    let finish: (value: { url: string }) => void = () => undefined;
    const group = { kind: 'group' as const, id: 'C' + '4'.repeat(32) };

    await work.start(call, new Promise((resolve) => (finish = resolve)));
    await work.start(
      { ...call, source: group, idempotencyKey: 'turn-2:call-1' },
      new Promise(() => undefined),
    );
    work.abandon(group.id);
    expect(await work.interrupt()).toBe(1);
    // Reported once: a second stop (a second signal) reports nothing again.
    expect(await work.interrupt()).toBe(0);
    finish({ url: 'r.pdf' });
    await work.settled(50);

    expect(delivered).toEqual([
      {
        ...finishedMessage(call, INTERRUPTED_OUTCOME, 1_800_000_000_000),
        text: `render_report: ${JSON.stringify(INTERRUPTED_OUTCOME)}`,
      },
    ]);
  });

  it('logs an interruption the inbox would not take, and never rejects', async () => {
    const { work, lines } = backgroundWork({
      deliver: () => Promise.reject(new Error('the store is closed')),
    });

    await work.start(call, new Promise(() => undefined));

    expect(await work.interrupt()).toBe(0);
    expect(
      lines.find((line) => line.message === 'background work interrupted, and its report was not kept'),
    ).toMatchObject({ tool: 'render_report', error: { message: 'the store is closed' } });
  });

  it('notes each piece in its ledger while it runs, and strikes it once its outcome or interruption is in the inbox', async () => {
    const ledger = new MemoryLedger();
    const { work, delivered } = backgroundWork({ ledger });

    await work.start(call, later(20, { done: true }));
    await work.start({ ...call, idempotencyKey: 'turn-2:call-1' }, new Promise(() => undefined));
    await Promise.resolve();
    expect(ledger.keys()).toEqual(['turn-1:call-1', 'turn-2:call-1']);
    await work.settled(100);
    expect(ledger.keys()).toEqual(['turn-2:call-1']);
    await work.interrupt();

    expect(ledger.keys()).toEqual([]);
    expect(delivered.map((message) => message.text)).toEqual([
      'render_report: {"done":true}',
      `render_report: ${JSON.stringify(INTERRUPTED_OUTCOME)}`,
    ]);
  });

  it("reports what a process that died left in the ledger as interrupted, each once, in its caller's name", async () => {
    const ledger = new MemoryLedger();
    // The process that died: it noted its piece, then nothing more.
    const died = backgroundWork({ ledger });
    await died.work.start(call, new Promise(() => undefined));
    await Promise.resolve();

    const next = backgroundWork({ ledger });
    expect(await next.work.reportLeftBehind()).toBe(1);
    expect(await next.work.reportLeftBehind()).toBe(0);

    expect(next.delivered).toEqual([finishedMessage(call, INTERRUPTED_OUTCOME, 1_800_000_000_000)]);
    expect(next.lines.map((line) => line.message)).toContain(
      'background work left running by a process that died: reported interrupted',
    );
    expect(ledger.keys()).toEqual([]);
  });

  it("strikes a forgotten source's piece at the stop without a report, so no later start reports it", async () => {
    const ledger = new MemoryLedger();
    const { work, delivered } = backgroundWork({ ledger });

    await work.start(call, new Promise(() => undefined));
    work.abandon(source.id);
    expect(await work.interrupt()).toBe(0);

    expect(delivered).toEqual([]);
    expect(ledger.keys()).toEqual([]);
  });

  it('keeps in the ledger a piece whose outcome the inbox would not take: the next start reports it', async () => {
    const ledger = new MemoryLedger();
    const { work } = backgroundWork({
      ledger,
      deliver: () => Promise.reject(new Error('the actor host is shut down')),
    });

    await work.start(call, Promise.resolve({ done: true }));
    await work.settled();

    expect(ledger.keys()).toEqual(['turn-1:call-1']);
  });

  it('runs the work when its ledger cannot note it, and says a crash would leave no report', async () => {
    const ledger = new MemoryLedger();
    ledger.note = () => Promise.reject(new Error('disk full'));
    const { work, delivered, lines } = backgroundWork({ ledger });

    await work.start(call, later(10, { done: true }));
    await work.settled();

    expect(delivered.map((message) => message.text)).toEqual(['render_report: {"done":true}']);
    expect(lines.find((line) => line.message.startsWith('background work not noted'))).toMatchObject({
      error: { message: 'disk full' },
    });
  });

  // A store that refuses a write for a moment (a full disk, a throttled table). Before, the
  // outcome was given up at the first refusal: the conversation heard of it only at the next
  // start, and then only that the work was interrupted.
  it('hands an outcome the inbox refused to it again, and strikes the piece once it is in', async () => {
    const ledger = new MemoryLedger();
    const delivered: InboundMessage[] = [];
    let refusals = 2;
    const { work, lines } = backgroundWork({
      ledger,
      redeliverDelaysMs: [5, 5, 5],
      deliver: (message) =>
        refusals-- > 0
          ? Promise.reject(new Error('database or disk is full'))
          : Promise.resolve(delivered.push(message)),
    });

    await work.start(call, Promise.resolve({ done: true }));
    await work.settled();

    expect(delivered.map((message) => message.text)).toEqual(['render_report: {"done":true}']);
    expect(ledger.keys()).toEqual([]);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([
      expect.objectContaining({
        retryInMs: 5,
        error: expect.objectContaining({ message: 'database or disk is full' }) as unknown,
      }),
      expect.objectContaining({ retryInMs: 5 }),
    ]);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('stops trying an outcome again once the piece was reported interrupted meanwhile', async () => {
    const ledger = new MemoryLedger();
    const delivered: InboundMessage[] = [];
    let refuse = true;
    const { work } = backgroundWork({
      ledger,
      redeliverDelaysMs: [50, 50],
      deliver: (message) =>
        refuse
          ? Promise.reject(new Error('database or disk is full'))
          : Promise.resolve(delivered.push(message)),
    });
    await work.start(call, Promise.resolve({ done: true }));
    await new Promise((resolve) => setTimeout(resolve, 10));

    refuse = false;
    expect(await work.interrupt()).toBe(1);
    await work.settled();

    expect(delivered.map((message) => message.text)).toEqual([
      `render_report: ${JSON.stringify(INTERRUPTED_OUTCOME)}`,
    ]);
    expect(ledger.keys()).toEqual([]);
  });

  it('logs an outcome the inbox would not take, and never rejects', async () => {
    const { work, lines } = backgroundWork({
      deliver: () => Promise.reject(new Error('the actor host is shut down')),
    });

    await work.start(call, Promise.resolve({ done: true }));
    await work.settled();

    expect(
      lines.find((line) => line.message === 'background work finished, but its outcome was not kept'),
    ).toMatchObject({
      tool: 'render_report',
      error: { message: 'the actor host is shut down' },
    });
  });
});

describe('the tool registry and background work', () => {
  const context = {
    source,
    sender: { userId: source.id },
    turnId: 'turn-1',
    signal: new AbortController().signal,
    clock: { now: () => 0 },
  };

  it('answers the call once its piece is noted, so a crash after the model heard "started" finds it', async () => {
    // The note was written beside the turn: a process killed right after the reply could leave
    // no note, and no report (seen on Lambda, where the ledger's first write opens a connection).
    const events: string[] = [];
    const ledger = new MemoryLedger();
    const slowNote: BackgroundLedger = {
      note: (noted) =>
        later(50, undefined)
          .then(() => ledger.note(noted))
          .then(() => void events.push('noted')),
      strike: (struck) => ledger.strike(struck),
      leftBehind: () => ledger.leftBehind(),
    };
    const { work } = backgroundWork({ ledger: slowNote });
    const registry = new ToolRegistry({ background: work });
    registry.register(reportTool(() => new Promise(() => undefined)));

    await registry.execute({ id: 'call-1', name: 'render_report', args: {} }, context);
    events.push('answered');

    expect(events).toEqual(['noted', 'answered']);
    expect(ledger.keys()).toEqual(['turn-1:call-1']);
  });

  it('answers the call at once, marked async, and follows the work to the inbox', async () => {
    const { work, delivered } = backgroundWork();
    const registry = new ToolRegistry({ background: work });
    registry.register(reportTool(() => later(30, { url: 'r.pdf' })));

    const outcome = await registry.execute({ id: 'call-1', name: 'render_report', args: {} }, context);

    expect(outcome).toEqual({
      callId: 'call-1',
      name: 'render_report',
      response: { started: true },
      isError: false,
      async: true,
    });
    expect(delivered).toEqual([]);
    await work.settled();
    expect(delivered).toEqual([
      expect.objectContaining(
        finishedMessage({ ...call, sender: { userId: source.id } }, { url: 'r.pdf' }, 1_800_000_000_000),
      ),
    ]);
  });

  it('refuses work that is no promise, and work a runtime without background work cannot take', async () => {
    const withWork = new ToolRegistry({ background: backgroundWork().work });
    withWork.register(reportTool(() => 'soon'));
    const without = new ToolRegistry();
    without.register(reportTool(() => Promise.reject(new Error('never heard of'))));

    const notPromise = await withWork.execute({ id: 'c', name: 'render_report', args: {} }, context);
    const nowhere = await without.execute({ id: 'c', name: 'render_report', args: {} }, context);

    expect(notPromise).toMatchObject({
      isError: true,
      response: { error: 'tool "render_report" returned an invalid response' },
    });
    expect(nowhere).toMatchObject({
      isError: true,
      response: { error: 'tool "render_report" left work in the background, which this runtime cannot take' },
    });
  });
});

describe('background work end to end, through the runtime npm start runs', () => {
  it('answers the call at once, and the finished work starts a turn whose answer is pushed', async () => {
    // A tool could say `async: true`, but nothing it finished ever reached its conversation.
    const model = reportModel();
    const running = await startKaiwaWithFakeLine({
      model,
      overrides: { tools: [reportTool(() => later(150, { url: 'r.pdf' }))] },
    });
    try {
      await askForReport(running);

      await vi.waitFor(() => expect(running.line.requestsTo('/v2/bot/message/push')).toHaveLength(1), {
        timeout: 5000,
      });
      await running.kaiwa.host.whenSettled();
      expect(running.line.requestsTo('/v2/bot/message/reply').map((request) => request.body)).toMatchObject([
        { messages: [{ text: 'Working on it.' }] },
      ]);
      expect(running.line.requestsTo('/v2/bot/message/push').map((request) => request.body)).toMatchObject([
        { to: userId, messages: [{ text: 'Ready: render_report: {"url":"r.pdf"}' }] },
      ]);
      const finished = model.calls.at(-1)?.history.at(-1);
      expect(finished).toMatchObject({ role: 'user', event: 'toolFinished', sender: { userId } });
    } finally {
      await running.close();
    }
  });

  it('is waited for when npm start stops, within half the shutdown deadline: its outcome is kept', async () => {
    const store = new MemorySourceStore();
    const running = await startKaiwaWithFakeLine({
      model: reportModel(),
      store,
      overrides: { tools: [reportTool(() => later(300, { url: 'r.pdf' }))] },
    });
    let closed = false;
    try {
      await askForReport(running);
      await vi.waitFor(() => expect(running.line.requestsTo('/v2/bot/message/reply')).toHaveLength(1));
      await running.close();
      closed = true;

      // Answered before the stop, or waiting in the inbox for the next start: never lost.
      const kept = [
        ...(await store.inbox(userId)).map((stored) =>
          stored.item && 'text' in stored.item ? stored.item.text : '',
        ),
        ...userTexts(await storedHistory(store, userId)),
      ];
      expect(kept).toContain('render_report: {"url":"r.pdf"}');
    } finally {
      if (!closed) await running.close();
    }
  });

  it('reports work still running at the end of the stop as interrupted: the next start tells the user', async () => {
    // It was lost, and its conversation never heard of it again: the user waited for ever.
    const store = new MemorySourceStore();
    const tools = [reportTool(() => new Promise<{ url: string }>(() => undefined))];
    const first = await startKaiwaWithFakeLine({
      model: reportModel(),
      store,
      overrides: { tools },
      env: { KAIWA_SHUTDOWN_DEADLINE_MS: '400' },
    });
    await askForReport(first);
    await vi.waitFor(() => expect(first.line.requestsTo('/v2/bot/message/reply')).toHaveLength(1));
    await first.close();

    // Answered during the stop, or by the next start from the inbox: told either way.
    const next = await startKaiwaWithFakeLine({ model: reportModel(), store, overrides: { tools } });
    try {
      await next.kaiwa.host.whenSettled();
      const pushed = [first, next].flatMap((running) => running.line.requestsTo('/v2/bot/message/push'));
      expect(pushed.map((request) => request.body)).toMatchObject([
        { to: userId, messages: [{ text: `Ready: render_report: ${JSON.stringify(INTERRUPTED_OUTCOME)}` }] },
      ]);
    } finally {
      await next.close();
    }
  });

  it('reports at the next start, as interrupted, the work a SIGKILL left running', async () => {
    // A crash left no word: the model had been told only that the work started.
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-background-'));
    await killMidBackgroundWork({ STORE: 'sqlite', DATA_DIR: dataDir });

    const store = await openSqliteSourceStore({ file: path.join(dataDir, 'kaiwa.db') });
    const running = await startKaiwaWithFakeLine({
      model: reportModel(),
      store,
      env: { STORE: 'sqlite', DATA_DIR: dataDir },
    });
    try {
      await vi.waitFor(() => expect(running.line.requestsTo('/v2/bot/message/push')).toHaveLength(1));
      await running.kaiwa.host.whenSettled();
      expect(running.line.requestsTo('/v2/bot/message/push').map((request) => request.body)).toMatchObject([
        { to: userId, messages: [{ text: `Ready: render_report: ${JSON.stringify(INTERRUPTED_OUTCOME)}` }] },
      ]);
    } finally {
      await running.close();
      await store.close();
    }
    const ledger = await SqliteBackgroundLedger.open({ file: path.join(dataDir, BACKGROUND_FILE_NAME) });
    expect(await ledger.leftBehind()).toEqual([]);
    ledger.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('drops what finishes after the user unfollowed, as their reminders are cancelled', async () => {
    let finish: (value: { url: string }) => void = () => undefined;
    const { lines, logger } = recordingLogger('info');
    const store = new MemorySourceStore();
    const running = await startKaiwaWithFakeLine({
      model: reportModel(),
      store,
      overrides: { logger, tools: [reportTool(() => new Promise((resolve) => (finish = resolve)))] },
    });
    try {
      await askForReport(running);
      await vi.waitFor(() => expect(running.line.requestsTo('/v2/bot/message/reply')).toHaveLength(1));
      await running.post(
        JSON.stringify(
          webhookBody([{ ...unfollowEvent, timestamp: Date.now(), source: { type: 'user', userId } }]),
        ),
      );
      await running.kaiwa.host.whenSettled();

      finish({ url: 'r.pdf' });
      await vi.waitFor(() =>
        expect(lines.map((line) => line.message)).toContain(
          'background work finished for a forgotten source: dropped',
        ),
      );
      await running.kaiwa.host.whenSettled();

      expect(running.line.requestsTo('/v2/bot/message/push')).toEqual([]);
      expect(await store.inbox(userId)).toEqual([]);
    } finally {
      await running.close();
    }
  });
});

/** The user asks for a report, by a signed webhook with a fresh reply token. */
function askForReport(running: Awaited<ReturnType<typeof startKaiwaWithFakeLine>>) {
  return running.post(
    JSON.stringify(
      webhookBody([
        {
          ...textMessageEvent,
          timestamp: Date.now(),
          source: { type: 'user', userId },
          replyToken: running.line.emulator.issueReplyToken(userId),
          message: { type: 'text', id: '1', quoteToken: 'q', text: 'a report, please' },
        },
      ]),
    ),
  );
}
