import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { HistoryEntry, InboxItem } from '../../src/domain/index.js';
import { CONVERSATION_MACHINE_VERSION } from '../../src/machines/index.js';
import { ScriptedModel, callReply, callTools, type ModelRequest } from '../../src/model/index.js';
import {
  DynamoDbSourceStore,
  MemorySourceStore,
  MemorySourceTables,
  openSqliteSourceStore,
} from '../../src/persistence/index.js';
import { startDynamoDbLocal } from '../support/dynamodb-local.js';
import { defineTool } from '../../src/tools/index.js';
import {
  createTestHost,
  messageFor,
  sourceAtRest,
  storedHead,
  storedHistory,
  userSourceNumber,
  userTexts,
} from '../support/host-harness.js';
import { recordingLogger } from '../support/recording-logger.js';
import { until } from '../support/until.js';

/** Replies with the text of the turn's user messages. */
const echoModel = () =>
  new ScriptedModel([(request: ModelRequest) => callReply(`re: ${turnTexts(request.history)}`)], {
    repeatLast: true,
  });

/** The texts of the user entries at the end of history (the current turn's), joined with '+'. */
function turnTexts(history: readonly HistoryEntry[]): string {
  const texts: string[] = [];
  for (let index = history.length - 1; index >= 0; index--) {
    const entry = history[index]!;
    if (entry.role !== 'user') break;
    texts.unshift(entry.text);
  }
  return texts.join('+');
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** The echo model, its every answer held until `open()`: messages queue behind the first turn. */
function gatedEchoModel() {
  const { open, opened } = gate();
  const model = new ScriptedModel(
    [
      async (request: ModelRequest) => {
        await opened;
        return callReply(`re: ${turnTexts(request.history)}`);
      },
    ],
    { repeatLast: true },
  );
  return { model, open };
}

/** A store of this kind for a test (undefined: the host's own memory store), and its clean-up. */
async function storeOfKind(kind: 'memory' | 'sqlite' | 'dynamodb') {
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-unsend-'));
  const local = kind === 'dynamodb' ? await startDynamoDbLocal() : undefined;
  const store =
    kind === 'sqlite'
      ? await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db') })
      : local && new DynamoDbSourceStore({ client: local.client, tableName: await local.createTable() });
  const close = async () => {
    await store?.close();
    await local?.stop();
    await rm(directory, { recursive: true, force: true });
  };
  return { store, close };
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
    const inner = new MemorySourceStore();
    const slow = userSourceNumber(1);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const claimed: string[] = [];
    const store = new Proxy(inner, {
      get(target, property) {
        if (property === 'accept')
          return async (item: InboxItem) => {
            if (item.source.id === slow.id) await gate;
            claimed.push(item.source.id);
            return target.accept(item);
          };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
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

  it('stores a small head and the history as entries, empties the inbox and releases the source', async () => {
    const { host, store } = createTestHost({ model: echoModel() });
    const source = userSourceNumber(2);

    await host.accept([messageFor(source, 'remember me')]);
    await host.whenSettled();

    const head = await storedHead(store, source.id);
    expect(head).toMatchObject({ busy: false, machineVersion: CONVERSATION_MACHINE_VERSION, lastSeq: 3 });
    expect(head?.owner).toBeUndefined();
    expect(head?.snapshot?.context).not.toHaveProperty('history');
    expect(head?.snapshot?.context).not.toHaveProperty('settings');
    expect((await storedHistory(store, source.id)).map((entry) => entry.role)).toEqual([
      'user',
      'model',
      'tool',
    ]);
    expect(await store.inbox(source.id)).toEqual([]);
  });

  it('resumes accepted messages after a crash, from the inbox', async () => {
    const store = new MemorySourceStore();
    const source = userSourceNumber(3);
    // The first process accepts the message and dies before running the turn.
    await store.accept(messageFor(source, 'did you get this?'));

    const { host, delivery } = createTestHost({ model: echoModel(), store });
    expect(await host.recover()).toBe(1);
    await host.whenSettled();

    expect(delivery.texts).toEqual(['re: did you get this?']);
  });

  it('runs a turn again from the inbox when the process stopped before its first checkpoint', async () => {
    const store = new MemorySourceStore();
    const source = userSourceNumber(4);
    const first = createTestHost({ model: new ScriptedModel([() => new Promise(() => {})]), store });
    await first.host.accept([messageFor(source, 'slow question')]);
    await until(() => first.host.snapshotOf(source.id)?.matches('generate'));
    await first.host.shutdown(50); // the model call is cut off: nothing happened outside

    const second = createTestHost({ model: echoModel(), store });
    await second.host.recover();
    await until(() => sourceAtRest(store, source.id));
    await second.host.whenSettled();

    expect(first.delivery.texts).toEqual([]);
    expect(second.delivery.texts).toEqual(['re: slow question']);
    expect(userTexts(await storedHistory(store, source.id))).toEqual(['slow question']);
  });

  it('resumes a turn after its intent with the deadline the turn started with', async () => {
    const store = new MemorySourceStore();
    const source = userSourceNumber(44);
    const bookings: string[] = [];
    const book = (answer: () => Promise<void>) =>
      defineTool({
        name: 'book',
        description: 'Books a table.',
        category: 'test',
        optional: true,
        parameters: { type: 'object', properties: {}, additionalProperties: false },
        response: { type: 'object', properties: {} },
      }).implement(async (_args, context) => {
        bookings.push(context.idempotencyKey);
        await answer();
        return { forLLM: {} };
      });
    const firstModel = new ScriptedModel([callTools(['book', {}])]);
    const first = createTestHost({
      model: firstModel,
      store,
      tools: [book(() => new Promise(() => {}))],
      host: { turnDeadlineMs: 60_000 },
    });
    await first.host.accept([messageFor(source, 'book a table')]);
    await until(() => bookings.length === 1); // the intent is durable, the tool runs
    await first.host.shutdown(50);

    const model = echoModel();
    const second = createTestHost({
      model,
      store,
      tools: [book(() => Promise.resolve())],
      host: { turnDeadlineMs: 60_000 },
    });
    await second.host.recover();
    await until(() => sourceAtRest(store, source.id));
    await second.host.whenSettled();

    const deadline = firstModel.calls[0]!.deadline!;
    expect(deadline).toBeGreaterThan(Date.now());
    expect(model.calls[0]?.deadline).toBe(deadline);
    expect(second.delivery.texts).toEqual(['re: ']); // the resumed turn replies (after its tool step)
    expect(bookings).toHaveLength(2);
    expect(new Set(bookings).size).toBe(1); // the same idempotency key both times
  });

  it('keeps the settings of its configuration, not those of the process that stored the conversation', async () => {
    const store = new MemorySourceStore();
    const source = userSourceNumber(45);
    const first = createTestHost({ model: echoModel(), store, host: { settings: { maxModelCalls: 10 } } });
    await first.host.accept([messageFor(source, 'one')]);
    await first.host.whenSettled();
    await first.host.shutdown();

    const think = defineTool({
      name: 'think',
      description: 'Thinks.',
      category: 'test',
      optional: true,
      sideEffects: false,
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      response: { type: 'object', properties: {} },
    }).implement(() => Promise.resolve({ forLLM: {} }));
    const model = new ScriptedModel([callTools(['think', {}])], { repeatLast: true });
    const second = createTestHost({ model, store, tools: [think], host: { settings: { maxModelCalls: 3 } } });
    await second.host.accept([messageFor(source, 'two')]);
    await second.host.whenSettled();

    expect(model.calls).toHaveLength(3);
  });

  it('evicts idle sources and restores them with their history on the next message', async () => {
    const model = echoModel();
    const { host } = createTestHost({ model, host: { idleEvictionMs: 5 } });
    const source = userSourceNumber(5);

    await host.accept([messageFor(source, 'first')]);
    await host.whenSettled();
    await until(() => host.liveSources().length === 0);
    await host.accept([messageFor(source, 'second')]);
    await host.whenSettled();

    expect(userTexts(model.calls.at(-1)?.history ?? [])).toEqual(['first', 'second']);
  });

  it('keeps at most maxLiveSources in memory, the least recently used leaving first', async () => {
    const { host, delivery } = createTestHost({ model: echoModel(), host: { maxLiveSources: 2 } });
    for (let n = 0; n < 5; n++) {
      await host.accept([messageFor(userSourceNumber(60 + n), `hi ${n}`)]);
      await host.whenSettled();
    }
    await until(() => host.liveSources().length <= 2);

    expect(host.liveSources()).toEqual([userSourceNumber(63).id, userSourceNumber(64).id]);
    expect(delivery.texts).toHaveLength(5);
  });

  it('lets at most maxWorkingSources work at once; the others wait their turn, oldest first, and all are answered', async () => {
    // A restart with thousands of sources holding work started every one at once: 5,000 took
    // 5.9 s to start (each notify scanned every busy source for an idle one to evict) and held
    // webhooks for seconds. Measured here: how many model calls run at the same time.
    let running = 0;
    let most = 0;
    const started: string[] = [];
    const model = new ScriptedModel(
      [
        async (request: ModelRequest) => {
          running++;
          most = Math.max(most, running);
          started.push(userTexts(request.history).at(-1) ?? '');
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
          return callReply('ok');
        },
      ],
      { repeatLast: true },
    );
    const { host, delivery } = createTestHost({ model, host: { maxWorkingSources: 3 } });

    await host.accept(Array.from({ length: 12 }, (_, n) => messageFor(userSourceNumber(80 + n), `m${n}`)));
    await host.accept([messageFor(userSourceNumber(80), 'again')]);
    await host.whenSettled();

    expect(most).toBe(3);
    expect(delivery.texts).toHaveLength(13);
    // Admitted in the order their work came; a working source's second message is its own.
    expect(started.slice(0, 3)).toEqual(['m0', 'm1', 'm2']);
    expect(started.filter((text) => text.startsWith('m'))).toEqual(
      Array.from({ length: 12 }, (_, n) => `m${n}`),
    );
  });

  it('whenSettled waits for a source that waited for a working room, not only for those in memory', async () => {
    // The waiting source's actor was created when the room came free, and its first snapshot
    // (idle: settled) resolved whenSettled before its work reached it.
    const { host, delivery } = createTestHost({ model: echoModel(), host: { maxWorkingSources: 1 } });
    await host.accept([messageFor(userSourceNumber(145), 'first')]);
    await host.accept([messageFor(userSourceNumber(146), 'second')]);
    await host.whenSettled();

    expect(delivery.texts).toHaveLength(2);
  });

  it.each(['memory', 'SQLite'])(
    'on the %s store, a source whose chat never goes quiet gives its working room to a waiting one after its turn',
    async (storeKind) => {
      // A busy group whose next message comes while each turn runs never settled, so it kept its
      // room for as long as its chat went on: every chat waiting for a room waited with it.
      const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-fair-'));
      const store =
        storeKind === 'SQLite'
          ? await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db') })
          : undefined;
      try {
        const busy = userSourceNumber(140);
        const waiting = userSourceNumber(141);
        const answered: string[] = [];
        let busyTurns = 0;
        const model = new ScriptedModel(
          [
            async (request: ModelRequest) => {
              const text = userTexts(request.history).at(-1) ?? '';
              answered.push(text);
              // While the busy chat's turn runs, its next message comes (the first 8 turns).
              if (text.startsWith('busy') && ++busyTurns < 8) {
                await host.accept([messageFor(busy, `busy ${busyTurns}`)]);
              }
              await new Promise((resolve) => setTimeout(resolve, 5));
              return callReply(`re ${text}`);
            },
          ],
          { repeatLast: true },
        );
        const { host, delivery } = createTestHost({
          model,
          ...(store && { store }),
          host: { maxWorkingSources: 1 },
        });

        await host.accept([messageFor(busy, 'busy 0')]);
        await host.accept([messageFor(waiting, 'waiting')]);
        await host.whenSettled();

        // Its first turn over, the busy chat's room went to the chat that had waited for it.
        expect(answered).toEqual([
          'busy 0',
          'waiting',
          ...Array.from({ length: 7 }, (_, n) => `busy ${n + 1}`),
        ]);
        expect(delivery.texts).toHaveLength(9);
        if (store)
          for (const source of [busy, waiting]) expect(await sourceAtRest(store, source.id)).toBe(true);
      } finally {
        await store?.close();
        await rm(directory, { recursive: true, force: true });
      }
    },
  );

  it('on SQLite, a source its accept took while others worked is acquired afresh when its turn comes', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-working-'));
    const store = await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db') });
    try {
      const { host, delivery } = createTestHost({
        model: echoModel(),
        store,
        host: { maxWorkingSources: 2 },
      });
      const sources = Array.from({ length: 6 }, (_, n) => userSourceNumber(120 + n));
      // One webhook for six chats: its accept takes each idle source; four must wait.
      await host.accept(sources.map((source, n) => messageFor(source, `hi ${n}`)));
      expect(new Set(host.liveSources()).size).toBe(2);
      await host.whenSettled();

      expect(delivery.texts).toHaveLength(6);
      for (const source of sources) expect(await sourceAtRest(store, source.id)).toBe(true);
    } finally {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('two hosts on one store: one owner at a time, every message answered once and in history in order', async () => {
    const tables = new MemorySourceTables();
    const source = userSourceNumber(6);
    const a = createTestHost({
      model: echoModel(),
      store: new MemorySourceStore({ tables }),
      host: { leaseMs: 300, sideEffectTimeoutMs: 100 },
    });
    const b = createTestHost({
      model: echoModel(),
      store: new MemorySourceStore({ tables }),
      host: { leaseMs: 300, sideEffectTimeoutMs: 100 },
    });
    const messages = Array.from({ length: 6 }, (_, index) => messageFor(source, `m${index}`));

    for (const [index, message] of messages.entries()) await (index % 2 ? a : b).host.accept([message]);
    await until(() => sourceAtRest(a.store, source.id));
    await Promise.all([a.host.whenSettled(), b.host.whenSettled()]);

    const history = await storedHistory(a.store, source.id);
    expect(userTexts(history)).toEqual(messages.map((message) => message.text));
    expect([...a.delivery.texts, ...b.delivery.texts].sort()).toEqual(
      messages.map((message) => `re: ${message.text}`).sort(),
    );
  });

  it('restores a head whose state no longer exists at idle, keeping its history', async () => {
    const store = new MemorySourceStore();
    const source = userSourceNumber(7);
    const { host } = createTestHost({ model: echoModel(), store });
    await host.accept([messageFor(source, 'before the deploy')]);
    await host.whenSettled();
    await host.shutdown();
    // An older machine had a state called "thinking".
    const head = (await storedHead(store, source.id))!;
    const ownership = (await store.acquire(
      source.id,
      { ownerId: 'deployer', host: 'h', pid: 1, heartbeatAt: Date.now(), leaseMs: 1000 },
      () => false,
    ))!;
    await store.checkpoint({
      ownership,
      expectedVersion: head.version,
      machineVersion: CONVERSATION_MACHINE_VERSION,
      snapshot: { ...head.snapshot!, value: 'thinking' },
      busy: true,
      appended: [],
      removedSeqs: [],
      consumedKeys: [],
    });
    await store.release(ownership);

    const next = createTestHost({ model: echoModel(), store });
    await next.host.accept([messageFor(source, 'after the deploy')]);
    await next.host.whenSettled();

    expect(next.delivery.texts).toEqual(['re: after the deploy']);
    expect(userTexts(await storedHistory(store, source.id))).toEqual([
      'before the deploy',
      'after the deploy',
    ]);
  });

  it.each([
    ['queue', { maxQueuedTurns: 20 }, ['re: a', 're: b', 're: c', 're: d', 're: e']],
    ['queue beyond the cap', { maxQueuedTurns: 2 }, ['re: a', 're: b', 're: c+d+e']],
    ['merge', { queuePolicy: 'merge' as const }, ['re: a', 're: b+c+d+e']],
  ])('feeds messages that wait in the inbox as turns by the %s policy', async (_policy, settings, texts) => {
    const { open, opened } = gate();
    let first = true;
    const model = new ScriptedModel(
      [
        async (request: ModelRequest) => {
          if (first) {
            first = false;
            await opened;
          }
          return callReply(`re: ${turnTexts(request.history)}`);
        },
      ],
      { repeatLast: true },
    );
    const { host, store, delivery } = createTestHost({ model, host: { settings } });
    const source = userSourceNumber(9);

    await host.accept([messageFor(source, 'a')]);
    await until(() => model.calls.length === 1);
    for (const text of ['b', 'c', 'd', 'e']) await host.accept([messageFor(source, text)]);
    expect(await store.inbox(source.id)).toHaveLength(5); // 'a' is consumed by its first checkpoint
    open();
    await host.whenSettled();

    expect(delivery.texts).toEqual(texts);
    expect(await store.inbox(source.id)).toEqual([]);
  });

  // One webhook carries two chats' messages; the store fails for one of them (a full disk, say),
  // so the webhook answers 500 and LINE sends both again. Before, the chat whose message had been
  // stored was never told: on the redelivery its message was a duplicate, and it waited
  // unanswered until that chat's next message or a restart.
  it('answers a message stored in a webhook whose accept failed for another chat', async () => {
    class FailingStore extends MemorySourceStore {
      failFor: string | undefined;
      override accept(item: InboxItem) {
        if (item.source.id === this.failFor) return Promise.reject(new Error('database or disk is full'));
        return super.accept(item);
      }
    }
    const store = new FailingStore();
    const { host, delivery } = createTestHost({ model: echoModel(), store });
    const [stored, refused] = [userSourceNumber(19), userSourceNumber(20)];
    const body = [messageFor(stored, 'hello'), messageFor(refused, 'hi there')];
    store.failFor = refused.id;

    await expect(host.accept(body)).rejects.toThrow('disk is full');
    store.failFor = undefined;
    await expect(host.accept(body)).resolves.toEqual({ accepted: 1, duplicates: 1 });
    await host.whenSettled();

    expect(delivery.requests.map((request) => [request.source.id, request.texts])).toEqual(
      expect.arrayContaining([
        [stored.id, ['re: hello']],
        [refused.id, ['re: hi there']],
      ]),
    );
    expect(delivery.requests).toHaveLength(2);
  });

  it('finishes running turns on shutdown, then releases the source', async () => {
    const { open, opened } = gate();
    const model = new ScriptedModel([async () => (await opened, callReply('made it'))]);
    const { host, delivery, store } = createTestHost({ model });
    const source = userSourceNumber(8);
    await host.accept([messageFor(source, 'wait for me')]);

    const stopping = host.shutdown(5_000);
    await expect(host.accept([messageFor(source, 'too late')])).rejects.toThrow('shut down');
    open();
    await stopping;

    expect(delivery.texts).toEqual(['made it']);
    expect(await sourceAtRest(store, source.id)).toBe(true);
  });

  // Messages wait in the inbox while a turn runs; the user blocks the bot (or it is removed from
  // the group) meanwhile. Before, each waiting message still had its turn — the user's words and
  // the history sent to the model after they asked for their data to go, and an answer LINE
  // cannot deliver — and only then was everything deleted.
  it('forgets on unfollow the messages waiting before it, without their turns', async () => {
    const { model, open } = gatedEchoModel();
    const { host, store, delivery } = createTestHost({ model });
    const source = userSourceNumber(17);
    await host.accept([messageFor(source, 'first')]);
    await until(() => model.calls.length === 1);
    await host.accept([messageFor(source, 'waiting one')]);
    await host.accept([messageFor(source, 'waiting two')]);
    await host.accept([
      { kind: 'forget', eventId: 'e-block', source, timestamp: Date.now(), reason: 'unfollow' },
    ]);
    await host.accept([messageFor(source, 'back again')]);
    open();
    await host.whenSettled();

    expect(model.calls).toHaveLength(2);
    expect(delivery.texts).toEqual(['re: first', 're: back again']);
    expect(userTexts(await storedHistory(store, source.id))).toEqual(['back again']);
    expect(await store.inbox(source.id)).toEqual([]);
  });

  it('forgets on unfollow only what came before it: [unfollow, follow, message] in one webhook is answered', async () => {
    const forgotten: string[] = [];
    const { host, store, delivery } = createTestHost({
      model: echoModel(),
      host: { onForget: (source) => (forgotten.push(source.id), Promise.resolve()) },
    });
    const source = userSourceNumber(10);
    await host.accept([messageFor(source, 'before')]);
    await host.whenSettled();

    const unfollow: InboxItem = {
      kind: 'forget',
      eventId: 'e-unfollow',
      source,
      timestamp: Date.now(),
      reason: 'unfollow',
    };
    const follow = { ...messageFor(source, '[follow]'), lineEvent: 'follow' as const };
    await host.accept([unfollow, follow, messageFor(source, 'hello again')]);
    await host.whenSettled();

    expect(delivery.texts).toEqual(['re: before', 're: [follow]', 're: hello again']);
    expect(userTexts(await storedHistory(store, source.id))).toEqual(['[follow]', 'hello again']);
    expect(forgotten).toEqual([source.id]);
    expect((await storedHead(store, source.id))?.lastSeq).toBe(9); // seq numbers are never reused
  });

  it('keeps the data of an unfollowed source under the keep policy, and consumes the event', async () => {
    const { host, store } = createTestHost({ model: echoModel(), host: { forgetPolicy: 'keep' } });
    const source = userSourceNumber(11);
    await host.accept([messageFor(source, 'before')]);
    await host.accept([
      { kind: 'forget', eventId: 'e-leave', source, timestamp: Date.now(), reason: 'unfollow' },
    ]);
    await host.whenSettled();

    expect(userTexts(await storedHistory(store, source.id))).toEqual(['before']);
    expect(await store.inbox(source.id)).toEqual([]);
  });

  it('loads a conversation that failed again from its last checkpoint, and answers', async () => {
    const model = new ScriptedModel([callReply('better now')], { repeatLast: true });
    const { host, delivery, store, tools } = createTestHost({ model });
    // Once, a tool call settles with nothing: the machine's context update throws, the actor fails.
    const execute = tools.execute.bind(tools);
    let broken = true;
    tools.execute = (call, context) => {
      if (!broken) return execute(call, context);
      broken = false;
      return Promise.resolve(undefined as unknown as Awaited<ReturnType<typeof execute>>);
    };
    const source = userSourceNumber(13);

    await host.accept([messageFor(source, 'hello')]);
    await until(() => delivery.requests.length === 1);
    await host.whenSettled();

    expect(model.calls).toHaveLength(2);
    expect(delivery.texts).toEqual(['better now']);
    expect(userTexts(await storedHistory(store, source.id))).toEqual(['hello']);
  });

  it('removes an unsent message from the stored history', async () => {
    const { host, store } = createTestHost({ model: echoModel() });
    const source = userSourceNumber(12);
    // XState warns when an action creator runs inside a custom action (the event must be sent with sendTo).
    const warn = vi.spyOn(console, 'warn');
    await host.accept([{ ...messageFor(source, 'oops'), messageId: 'm-oops' }]);
    await host.whenSettled();
    await host.accept([
      { kind: 'unsend', eventId: 'e-unsend', source, timestamp: Date.now(), messageId: 'm-oops' },
    ]);
    await host.whenSettled();

    expect((await storedHistory(store, source.id)).map((entry) => entry.role)).toEqual(['model', 'tool']);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  // A message waits in the inbox while the turn before it runs; the user takes it back meanwhile.
  // Before, its turn came first and answered it — in a group, a reply about words the sender had
  // just withdrawn — and only then was it removed.
  it.each(['after', 'before'] as const)(
    'drops a queued message the user took back before its turn (the unsend %s it): never stored, never answered',
    async (order) => {
      const { model, open } = gatedEchoModel();
      const { lines, logger } = recordingLogger();
      const { host, store, delivery } = createTestHost({ model, logger });
      const source = userSourceNumber(16);
      await host.accept([messageFor(source, 'first')]);
      await until(() => model.calls.length === 1);
      const takenBack = { ...messageFor(source, 'oops, not for you'), messageId: 'm-queued' };
      const unsend = {
        kind: 'unsend' as const,
        eventId: 'e-unsend-queued',
        source,
        timestamp: Date.now(),
        messageId: 'm-queued',
      };
      // LINE does not promise order: a redelivered message can come after its unsend.
      if (order === 'before') await host.accept([unsend]);
      await host.accept([takenBack]);
      await host.accept([messageFor(source, 'second')]);
      if (order === 'after') await host.accept([unsend]);
      open();
      await host.whenSettled();

      expect(delivery.texts).toEqual(['re: first', 're: second']);
      expect(model.calls.flatMap((call) => userTexts(call.history))).not.toContain('oops, not for you');
      expect(userTexts(await storedHistory(store, source.id))).toEqual(['first', 'second']);
      expect(await store.inbox(source.id)).toEqual([]);
      // Found and gone with its unsend: not remembered as one still to come.
      expect(host.snapshotOf(source.id)?.context.unsentAhead ?? []).toEqual([]);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'info', sourceId: source.id, messageId: 'm-queued' }),
      );
    },
  );

  // The user takes a message back while its own turn runs (the model is thinking). Before, the
  // answer still went out — quoting, in a group, words the sender had just withdrawn — and the
  // message was removed only after. The turn's intent is now refused: no answer, nothing stored.
  it.each(['memory', 'sqlite', 'dynamodb'] as const)(
    'drops a turn whose message the user took back while it ran, before its answer (%s store)',
    async (kind) => {
      const { store, close } = await storeOfKind(kind);
      const { model, open } = gatedEchoModel();
      const { lines, logger } = recordingLogger();
      const { host, store: used, delivery } = createTestHost({ model, logger, ...(store && { store }) });
      const source = userSourceNumber(17);
      await host.accept([{ ...messageFor(source, 'my password is hunter2'), messageId: 'm-own' }]);
      await until(() => model.calls.length === 1);
      await host.accept([
        { kind: 'unsend', eventId: 'e-unsend-own', source, timestamp: Date.now(), messageId: 'm-own' },
      ]);
      open();
      await host.whenSettled();

      expect(delivery.texts).toEqual([]);
      expect(await storedHistory(used, source.id)).toEqual([]);
      expect(await used.inbox(source.id)).toEqual([]);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'info',
          sourceId: source.id,
          message: 'a message taken back during its turn: dropped before its answer',
          messageIds: ['m-own'],
        }),
      );
      expect(lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
      // The chat goes on, without the withdrawn words.
      await host.accept([messageFor(source, 'hello again')]);
      await host.whenSettled();
      expect(delivery.texts).toEqual(['re: hello again']);
      expect(
        model.calls
          .at(-1)!
          .history.map((entry) => JSON.stringify(entry))
          .join(),
      ).not.toContain('hunter2');
      await host.shutdown(1000);
      await close();
    },
  );

  // Under `merge`, the message taken back shares its turn with one still wanted: the turn is
  // dropped whole, and the message still wanted gets a turn of its own.
  it('drops a merged turn one of whose messages was taken back while it ran; the rest is answered', async () => {
    const gates = [gate(), gate()];
    const model = new ScriptedModel(
      [
        async (request: ModelRequest) => {
          await gates[Math.min(model.calls.length - 1, 2)]?.opened;
          return callReply(`re: ${turnTexts(request.history)}`);
        },
      ],
      { repeatLast: true },
    );
    const { host, store, delivery } = createTestHost({ model, host: { settings: { queuePolicy: 'merge' } } });
    const source = userSourceNumber(18);
    await host.accept([messageFor(source, 'a')]);
    await until(() => model.calls.length === 1);
    await host.accept([messageFor(source, 'b'), { ...messageFor(source, 'c, no wait'), messageId: 'm-c' }]);
    gates[0]!.open();
    await until(() => model.calls.length === 2);
    await host.accept([
      { kind: 'unsend', eventId: 'e-unsend-c', source, timestamp: Date.now(), messageId: 'm-c' },
    ]);
    gates[1]!.open();
    await host.whenSettled();

    expect(delivery.texts).toEqual(['re: a', 're: b']);
    expect(userTexts(await storedHistory(store, source.id))).toEqual(['a', 'b']);
    expect(await store.inbox(source.id)).toEqual([]);
  });

  // LINE does not promise order: a message whose first delivery failed comes again later, and
  // the user's unsend of it may arrive in between. Before, the message was then stored and
  // answered as if never taken back.
  it.each(['in one process', 'across a restart on SQLite'])(
    'drops a message whose unsend came first, %s: never stored, never answered',
    async (how) => {
      const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-unsend-'));
      const sqlite =
        how === 'in one process'
          ? undefined
          : await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db') });
      const first = createTestHost({ model: echoModel(), ...(sqlite && { store: sqlite }) });
      const source = userSourceNumber(15);
      await first.host.accept([
        { kind: 'unsend', eventId: 'e-unsend-early', source, timestamp: Date.now(), messageId: 'm-late' },
      ]);
      await first.host.whenSettled();
      if (sqlite) await first.host.shutdown(1000);
      const { host, store, delivery } = sqlite
        ? createTestHost({ model: echoModel(), store: sqlite, delivery: first.delivery })
        : first;
      await host.accept([{ ...messageFor(source, 'taken back'), messageId: 'm-late' }]);
      await host.whenSettled();
      await host.accept([messageFor(source, 'hello')]);
      await host.whenSettled();

      expect(userTexts(await storedHistory(store, source.id))).toEqual(['hello']);
      expect(delivery.texts).toEqual(['re: hello']);
      expect(await store.inbox(source.id)).toEqual([]);
      await host.shutdown(1000);
      await sqlite?.close();
      await rm(directory, { recursive: true, force: true });
    },
  );

  // LINE lets a user take a message back for a day; a busy group passes the history window
  // (200 entries) in far less. Before, only the window in memory was searched: a message older
  // than it stayed stored.
  it.each(['memory', 'sqlite', 'dynamodb'] as const)(
    'removes an unsent message older than the history window from the %s store too',
    async (kind) => {
      const { store, close } = await storeOfKind(kind);
      const { host, store: used } = createTestHost({
        model: echoModel(),
        ...(store && { store }),
        host: { settings: { maxHistoryEntries: 6 } },
      });
      const source = userSourceNumber(14);
      await host.accept([{ ...messageFor(source, 'old secret'), messageId: 'm-old' }]);
      await host.whenSettled();
      for (const text of ['one', 'two', 'three', 'four']) {
        await host.accept([messageFor(source, text)]);
        await host.whenSettled();
      }
      await host.accept([
        { kind: 'unsend', eventId: 'e-unsend-old', source, timestamp: Date.now(), messageId: 'm-old' },
      ]);
      await host.whenSettled();

      expect(userTexts(await storedHistory(used, source.id))).toEqual(['one', 'two', 'three', 'four']);
      await host.shutdown(1000);
      await close();
    },
  );
});
