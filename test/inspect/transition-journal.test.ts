import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assign, createActor, createMachine, fromPromise, setup } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FileJournalStore,
  MemoryJournalStore,
  TransitionJournal,
  conversationSummary,
  type JournalEntry,
  type JournalStore,
} from '../../src/inspect/index.js';
import { callReply } from '../../src/model/index.js';
import { createTestHost, messageFor, userSourceNumber } from '../support/host-harness.js';
import { gatedModel, until } from './inspect-harness.js';

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

/** A clock the test moves by hand, so durations are exact. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TransitionJournal on the conversation actors of an ActorHost', () => {
  it('records every transition of a turn with its event, states and the time spent in the previous state', async () => {
    const clock = manualClock();
    const journal = new TransitionJournal({
      store: new MemoryJournalStore(),
      clock,
      summarize: conversationSummary,
    });
    const gated = gatedModel(() => callReply('hello'));
    const { host } = createTestHost({
      model: gated.model,
      host: { inspect: (sourceId, event) => journal.record(sourceId, event), clock },
    });
    const source = userSourceNumber(1);

    await host.accept([messageFor(source, 'hi')]);
    await until(() => host.snapshotOf(source.id)?.matches('generate'));
    clock.advance(1234); // the model thinks
    gated.release();
    await host.whenSettled();
    await host.shutdown();
    const entries = await journal.entries(source.id);

    const steps = entries.map((entry) => [entry.kind, entry.event, entry.from, entry.to]);
    expect(steps).toEqual([
      ['start', 'xstate.init', '', 'idle'],
      ['transition', 'line.messages', 'idle', 'receive'],
      ['transition', 'always', 'receive', 'generate'],
      ['transition', 'xstate.done.actor.0.conversation.generate', 'generate', 'toolCall.starting'],
      ['transition', 'always', 'toolCall.starting', 'toolCall.running'],
      ['event', 'xstate.done.actor.tool-0', 'toolCall.running', 'toolCall.running'],
      ['transition', 'always', 'toolCall.running', 'toolCall.delivering.securing'],
      // The host made the intent durable: the reply may go.
      ['transition', 'checkpoint.done', 'toolCall.delivering.securing', 'toolCall.delivering.sending'],
      [
        'transition',
        'xstate.done.actor.0.conversation.toolCall.delivering.sending',
        'toolCall.delivering.sending',
        'toolCall.deciding',
      ],
      ['transition', 'always', 'toolCall.deciding', 'done'],
      ['transition', 'always', 'done', 'idle'],
      ['stop', 'xstate.stop', 'idle', 'idle'],
    ]);
    const leftGenerate = entries.find((entry) => entry.from === 'generate')!;
    expect(leftGenerate.durationMs).toBe(1234);
    expect(leftGenerate.transition).toEqual({
      source: 'conversation.generate',
      targets: ['conversation.toolCall'],
      eventType: 'xstate.done.actor.0.conversation.generate',
    });
    expect(entries.find((entry) => entry.to === 'receive')).toMatchObject({
      event: 'line.messages',
      durationMs: 0,
    });
    expect(entries.find((entry) => entry.to === 'generate')?.summary).toEqual({
      history: 1,
      queued: 0,
      modelCalls: 0,
      pendingTools: 0,
    });
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
  });

  it('keeps no message content or tokens: only state names, event types, times and counts', async () => {
    const journal = new TransitionJournal({
      store: new MemoryJournalStore(),
      clock: { now: () => Date.now() },
      summarize: conversationSummary,
    });
    const gated = gatedModel(() => callReply('a very private answer'));
    gated.release();
    const { host } = createTestHost({
      model: gated.model,
      host: { inspect: (sourceId, event) => journal.record(sourceId, event) },
    });
    const message = {
      ...messageFor(userSourceNumber(2), 'a very private question'),
      replyToken: 'reply-token-123456',
    };

    await host.accept([message]);
    await host.whenSettled();
    const text = JSON.stringify(await journal.entries(message.source.id));

    expect(text).not.toContain('private');
    expect(text).not.toContain('reply-token-123456');
  });

  it('tells listeners at once, in order', () => {
    const journal = new TransitionJournal({ store: new MemoryJournalStore(), clock: { now: () => 1 } });
    const seen: string[] = [];
    const unsubscribe = journal.subscribe((sourceId, entry) =>
      seen.push(`${sourceId}:${entry.kind}:${entry.to}`),
    );
    const actor = createActor(createMachine({ initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } }), {
      inspect: (event) => journal.record('s1', event),
    }).start();

    actor.send({ type: 'GO' });
    unsubscribe();
    actor.send({ type: 'GO' });

    expect(seen).toEqual(['s1:start:a', 's1:transition:b']);
  });

  it('remembers the last activity of its most recently active sources only, whatever the traffic', () => {
    let now = 0;
    const journal = new TransitionJournal({
      store: new MemoryJournalStore(),
      clock: { now: () => now },
      rememberedSources: 2,
    });
    const machine = createMachine({ initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } });
    const start = (sourceId: string) => {
      now++;
      return createActor(machine, { inspect: (event) => journal.record(sourceId, event) }).start();
    };
    const actors = ['s1', 's2', 's3'].map(start);
    now++;
    actors[0]!.send({ type: 'GO' }); // s1 again: s2 is now the longest quiet
    actors.push(start('s4'));

    expect(['s1', 's2', 's3', 's4'].map((sourceId) => journal.lastActivity(sourceId))).toEqual([
      4,
      undefined,
      undefined,
      5,
    ]);
    for (const actor of actors) actor.stop();
  });

  it('records an event no transition takes as ignored, and never throws into the actor', async () => {
    const journal = new TransitionJournal({ store: new MemoryJournalStore(), clock: { now: () => 5 } });
    journal.subscribe(() => {
      throw new Error('a broken listener');
    });
    const machine = setup({ types: { events: {} as { type: 'GO' } | { type: 'NOPE' } } }).createMachine({
      initial: 'a',
      states: { a: { on: { GO: 'b' } }, b: {} },
    });
    const actor = createActor(machine, { inspect: (event) => journal.record('s', event) }).start();

    actor.send({ type: 'NOPE' });
    actor.send({ type: 'GO' });

    const entries = await journal.entries('s');
    expect(entries.map((entry) => `${entry.kind}:${entry.event}:${entry.to}`)).toEqual([
      'start:xstate.init:a',
      'ignored:NOPE:a',
      'transition:GO:b',
    ]);
    expect(actor.getSnapshot().value).toBe('b');
  });

  it('follows only the source actor, not the children it invokes', async () => {
    const journal = new TransitionJournal({ store: new MemoryJournalStore(), clock: { now: () => 5 } });
    const child = createMachine({ initial: 'x', states: { x: { on: { PING: 'y' } }, y: {} } });
    const machine = setup({ actors: { child, work: fromPromise(() => Promise.resolve(1)) } }).createMachine({
      initial: 'busy',
      context: { n: 0 },
      states: {
        busy: {
          invoke: [
            { src: 'child', id: 'child' },
            { src: 'work', onDone: { target: 'free', actions: assign({ n: 1 }) } },
          ],
        },
        free: {},
      },
    });
    const actor = createActor(machine, { inspect: (event) => journal.record('s', event) }).start();
    await until(() => actor.getSnapshot().matches('free'));

    const entries = await journal.entries('s');
    expect(entries.map((entry) => `${entry.kind}:${entry.from}->${entry.to}`)).toEqual([
      'start:->busy',
      'transition:busy->free',
    ]);
  });
});

describe('journal stores', () => {
  const entry = (index: number): JournalEntry => ({
    id: `e${index}`,
    kind: 'transition',
    time: index,
    event: 'GO',
    from: 'a',
    to: 'b',
    toValue: 'b',
    durationMs: 1,
  });

  it.each([
    ['memory', () => Promise.resolve(new MemoryJournalStore({ entriesPerSource: 5, sources: 10 }))],
    [
      'file',
      async () => {
        const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-journal-'));
        directories.push(directory);
        return new FileJournalStore(directory, { entriesPerSource: 5, sources: 10 });
      },
    ],
  ])('the %s store keeps each source apart and bounded to its newest entries', async (_name, open) => {
    const store = await open();
    for (let index = 1; index <= 12; index++) await store.append('U1', [entry(index)]);
    await store.append('C2', [entry(100)]);

    expect((await store.read('U1')).map((item) => item.id)).toEqual(['e8', 'e9', 'e10', 'e11', 'e12']);
    expect((await store.read('C2')).map((item) => item.id)).toEqual(['e100']);
    expect(await store.read('R3')).toEqual([]);
    await store.delete('U1');
    expect(await store.read('U1')).toEqual([]);
  });

  async function journalDirectory() {
    const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-journal-'));
    directories.push(directory);
    return directory;
  }
  const journalFiles = async (directory: string) => (await readdir(directory)).sort();

  it.each([
    [
      'memory',
      (): Promise<{ store: JournalStore; directory?: string }> =>
        Promise.resolve({ store: new MemoryJournalStore({ entriesPerSource: 5, sources: 3 }) }),
    ],
    [
      'file',
      async () => {
        const directory = await journalDirectory();
        return { store: new FileJournalStore(directory, { entriesPerSource: 5, sources: 3 }), directory };
      },
    ],
  ])(
    'the %s store keeps the journals of its most recently written sources only, whatever the traffic',
    async (_name, open) => {
      const { store, directory } = await open();
      for (const [index, sourceId] of ['U1', 'U2', 'U3', 'U1', 'U4'].entries())
        await store.append(sourceId, [entry(index)]);

      // U2 was written longest ago: its journal gave way to U4's.
      expect(await store.read('U2')).toEqual([]);
      expect((await store.read('U1')).map((item) => item.id)).toEqual(['e0', 'e3']);
      expect((await store.read('U3')).map((item) => item.id)).toEqual(['e2']);
      expect((await store.read('U4')).map((item) => item.id)).toEqual(['e4']);
      if (directory) expect(await journalFiles(directory)).toEqual(['U1.jsonl', 'U3.jsonl', 'U4.jsonl']);
    },
  );

  it('the file store, started on more journals than its bound, keeps the most recently written', async () => {
    const directory = await journalDirectory();
    const before = new FileJournalStore(directory, { entriesPerSource: 5, sources: 10 });
    for (const [index, sourceId] of ['U5', 'U1', 'U4', 'U2', 'U3'].entries()) {
      await before.append(sourceId, [entry(index)]);
      // Written a minute apart, whatever the order of their names.
      const minute = new Date(Date.UTC(2026, 10, 1, 0, index));
      await utimes(path.join(directory, `${sourceId}.jsonl`), minute, minute);
    }

    const afterRestart = new FileJournalStore(directory, { entriesPerSource: 5, sources: 3 });
    await afterRestart.append('U6', [entry(6)]);

    expect(await journalFiles(directory)).toEqual(['U2.jsonl', 'U3.jsonl', 'U6.jsonl']);
    expect((await afterRestart.read('U3')).map((item) => item.id)).toEqual(['e4']);
  });

  it('the file store survives a restart, compacts its file, and skips a line torn by a crash', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-journal-'));
    directories.push(directory);
    const first = new FileJournalStore(directory, { entriesPerSource: 3, sources: 10 });
    await first.append('U1', [entry(1), entry(2), entry(3), entry(4), entry(5), entry(6), entry(7)]);
    const file = path.join(directory, 'U1.jsonl');
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(3);
    await writeFile(file, `${await readFile(file, 'utf8')}{"id":"torn","ki`);

    const afterRestart = new FileJournalStore(directory, { entriesPerSource: 3, sources: 10 });
    await afterRestart.append('U1', [entry(8)]);

    expect((await afterRestart.read('U1')).map((item) => item.id)).toEqual(['e6', 'e7', 'e8']);
  });
});
