import { describe, expect, it } from 'vitest';
import type { HistoryEntry, InboxItem, JsonObject } from '../../src/domain/index.js';
import { createLogger } from '../../src/logging/index.js';
import { CONVERSATION_MACHINE_VERSION } from '../../src/machines/index.js';
import { ScriptedModel, callReply, type ModelRequest } from '../../src/model/index.js';
import { MemoryStore } from '../../src/persistence/index.js';
import {
  createTestHost,
  messageFor,
  storedHistory,
  userSourceNumber,
  userTexts,
} from '../support/host-harness.js';
import { until } from '../support/until.js';

/** Replies with the text of the turn's last user message. */
const echoModel = () =>
  new ScriptedModel([(request: ModelRequest) => callReply(`re: ${lastUserText(request.history)}`)], {
    repeatLast: true,
  });

function lastUserText(history: readonly HistoryEntry[]): string {
  const entry = history.findLast((item) => item.role === 'user');
  return entry?.role === 'user' ? entry.text : '';
}

describe('actor host', () => {
  it('answers 100 sources × 5 concurrent messages, in order per source', async () => {
    const { host, delivery } = createTestHost({ model: echoModel() });
    const sources = Array.from({ length: 100 }, (_, index) => userSourceNumber(index));

    await Promise.all(
      sources.flatMap((source) =>
        [1, 2, 3, 4, 5].map((n) => host.accept([messageFor(source, `${source.id}#${n}`)])),
      ),
    );
    await host.whenSettled();

    expect(delivery.requests).toHaveLength(500);
    for (const source of sources) {
      const texts = delivery.requests
        .filter((request) => request.source.id === source.id)
        .flatMap((r) => r.texts);
      expect(texts).toEqual([1, 2, 3, 4, 5].map((n) => `re: ${source.id}#${n}`));
    }
  });

  it('ignores an event id it accepted before', async () => {
    const { host, delivery } = createTestHost({ model: echoModel() });
    const message = messageFor(userSourceNumber(1), 'once');

    expect(await host.accept([message])).toEqual({ accepted: 1, duplicates: 0 });
    expect(await host.accept([message])).toEqual({ accepted: 0, duplicates: 1 });
    await host.whenSettled();

    expect(delivery.texts).toEqual(['re: once']);
  });

  it('accepts through the shared accept path: one slow source does not hold up another', async () => {
    const inner = new MemoryStore();
    const slow = userSourceNumber(1);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const claimed: string[] = [];
    const store = Object.assign(Object.create(inner) as MemoryStore, {
      accept: async (item: InboxItem) => {
        if (item.source.id === slow.id) await gate;
        claimed.push(item.source.id);
        return inner.accept(item);
      },
    });
    const { host } = createTestHost({ model: echoModel(), store });

    const accepting = host.accept([messageFor(slow, 'slow'), messageFor(userSourceNumber(2), 'fast')]);
    await until(() => claimed.length === 1, 2000);
    expect(claimed).toEqual([userSourceNumber(2).id]);
    open();
    expect(await accepting).toEqual({ accepted: 2, duplicates: 0 });
    await host.whenSettled();
  });

  it('persists after each step: the stored conversation holds the history and an empty inbox', async () => {
    const { host, store } = createTestHost({ model: echoModel() });
    const source = userSourceNumber(2);

    await host.accept([messageFor(source, 'remember me')]);
    await host.whenSettled();

    const stored = await store.load(source.id);
    expect(stored).toMatchObject({ busy: false, machineVersion: CONVERSATION_MACHINE_VERSION });
    expect(stored!.version).toBeGreaterThan(1);
    expect(storedHistory(stored).map((entry) => entry.role)).toEqual(['user', 'model', 'tool']);
    expect(await store.inbox(source.id)).toEqual([]);
  });

  it('resumes accepted messages after a crash, from the inbox', async () => {
    const store = new MemoryStore();
    const source = userSourceNumber(3);
    // The first process accepts the message and dies before running the turn.
    await store.accept(messageFor(source, 'did you get this?'));

    const { host, delivery } = createTestHost({ model: echoModel(), store });
    expect(await host.recover()).toBe(1);
    await host.whenSettled();

    expect(delivery.texts).toEqual(['re: did you get this?']);
  });

  it('resumes a turn that was in flight when the process stopped', async () => {
    const store = new MemoryStore();
    const source = userSourceNumber(4);
    const first = createTestHost({ model: new ScriptedModel([() => new Promise(() => {})]), store });
    await first.host.accept([messageFor(source, 'slow question')]);
    await until(async () => (await store.load(source.id))?.busy === true);
    await first.host.shutdown(50); // the deadline passes: the turn is persisted mid-flight

    const second = createTestHost({ model: echoModel(), store });
    await second.host.recover();
    await second.host.whenSettled();

    expect(first.delivery.texts).toEqual([]);
    expect(second.delivery.texts).toEqual(['re: slow question']);
    expect((await store.load(source.id))?.busy).toBe(false);
  });

  it('evicts idle actors and restores them with their history on the next message', async () => {
    const model = echoModel();
    const { host } = createTestHost({ model, host: { idleEvictionMs: 5 } });
    const source = userSourceNumber(5);

    await host.accept([messageFor(source, 'first')]);
    await host.whenSettled();
    await until(() => Promise.resolve(host.liveSources().length === 0));
    await host.accept([messageFor(source, 'second')]);
    await host.whenSettled();

    expect(userTexts(model.calls.at(-1)?.history ?? [])).toEqual(['first', 'second']);
  });

  it('two hosts on one source: one write wins, the other reloads, every message is in history once and in order', async () => {
    const store = new MemoryStore();
    const source = userSourceNumber(6);
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
    const a = createTestHost({ model: echoModel(), store, host: { logger } });
    const b = createTestHost({ model: echoModel(), store, host: { logger } });
    const messages = Array.from({ length: 6 }, (_, index) => messageFor(source, `m${index}`));

    for (const [index, message] of messages.entries()) await (index % 2 ? a : b).host.accept([message]);
    a.host.notify(source.id);
    b.host.notify(source.id);
    await Promise.all([a.host.whenSettled(), b.host.whenSettled()]);
    // Settle again: a host that lost a conflict may have reloaded after the first wait.
    await until(
      async () =>
        (await store.inbox(source.id)).length === 0 && (await store.load(source.id))?.busy === false,
    );
    await Promise.all([a.host.whenSettled(), b.host.whenSettled()]);

    const history = storedHistory(await store.load(source.id));
    expect(userTexts(history)).toEqual(messages.map((message) => message.text));
    expect(lines.some((line) => line.includes('version conflict; reloading'))).toBe(true);
  });

  it('restores a snapshot whose state no longer exists at idle, keeping history and queued messages', async () => {
    const store = new MemoryStore();
    const source = userSourceNumber(7);
    const { host } = createTestHost({ model: echoModel(), store });
    await host.accept([messageFor(source, 'before the deploy')]);
    await host.whenSettled();
    await host.shutdown();
    // An older machine had a state called "thinking"; a queued message waits in its context.
    const stored = (await store.load(source.id))!;
    const context = stored.snapshot.context as JsonObject;
    const queued = messageFor(source, 'queued before the deploy');
    await store.save({
      sourceId: source.id,
      expectedVersion: stored.version,
      machineVersion: CONVERSATION_MACHINE_VERSION,
      snapshot: {
        ...stored.snapshot,
        value: 'thinking',
        context: { ...context, pending: [[queued]] },
      } as unknown as JsonObject,
      busy: true,
      consumedEventIds: [],
    });

    const next = createTestHost({ model: echoModel(), store });
    await next.host.recover();
    await next.host.whenSettled();

    expect(next.delivery.texts).toEqual(['re: queued before the deploy']);
    expect(userTexts(storedHistory(await store.load(source.id)))).toEqual([
      'before the deploy',
      'queued before the deploy',
    ]);
  });

  it('keeps queued messages beyond the byte bound in the inbox, not the snapshot, and answers them all in order', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const model = new ScriptedModel(
      [
        async (request: ModelRequest) => {
          if (first) {
            first = false;
            await gate;
          }
          return callReply(`re: ${lastUserText(request.history)}`);
        },
      ],
      { repeatLast: true },
    );
    const { host, store, delivery } = createTestHost({ model, host: { maxQueuedBytes: 2048 } });
    const source = userSourceNumber(9);
    const texts = Array.from({ length: 12 }, (_, index) => `${index}:${'x'.repeat(500)}`);

    for (const text of texts) await host.accept([messageFor(source, text)]);
    await until(() => Promise.resolve(model.calls.length === 1));
    await until(async () => (await store.load(source.id)) !== undefined);
    const context = (await store.load(source.id))!.snapshot.context as unknown as { pending: unknown[] };
    const queuedInSnapshot = JSON.stringify(context.pending).length;
    expect(queuedInSnapshot).toBeLessThan(2048 + 700);
    expect((await store.inbox(source.id)).length).toBeGreaterThan(5);
    release();
    await host.whenSettled();
    await until(() => Promise.resolve(delivery.requests.length === 12));

    expect(delivery.texts).toEqual(texts.map((text) => `re: ${text}`));
  });

  it('finishes running turns on shutdown before stopping', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const model = new ScriptedModel([async () => (await gate, callReply('made it'))]);
    const { host, delivery, store } = createTestHost({ model });
    const source = userSourceNumber(8);
    await host.accept([messageFor(source, 'wait for me')]);

    const stopping = host.shutdown(5_000);
    await expect(host.accept([messageFor(source, 'too late')])).rejects.toThrow('shut down');
    release();
    await stopping;

    expect(delivery.texts).toEqual(['made it']);
    expect((await store.load(source.id))?.busy).toBe(false);
  });
});
