import { describe, expect, it } from 'vitest';
import type { HistoryEntry, Source } from '../../src/domain/index.js';
import {
  ScriptedModel,
  callReply,
  callTools,
  type ModelPort,
  type ModelRequest,
} from '../../src/model/index.js';
import { defineTool } from '../../src/tools/index.js';
import {
  createTestHost,
  messageFor,
  sourceAtRest,
  storedHistory,
  userSourceNumber,
  userTexts,
  storedHead,
} from '../support/host-harness.js';
import { RecordingDelivery } from '../support/conversation-harness.js';
import type { DeliveryRequest } from '../../src/machines/index.js';
import { MemorySourceStore, type SourceStore } from '../../src/persistence/index.js';
import { until } from '../support/until.js';
import { turnOutcome } from '../../src/inspect/turn-outcome.js';

// Poison (docs/aws.md, "Poison and long drains"): every turn counts an attempt on the inbox
// items it takes before it starts; a message whose turns started `maxInboxAttempts` times and
// never finished (its process died each time) is set aside with a notice, and the chat goes on.

function lastUserText(history: readonly HistoryEntry[]): string {
  const last = history.findLast((entry) => entry.role === 'user');
  return last?.role === 'user' ? last.text : '';
}

/** A model that answers every turn `re: ` and its last user message. */
function echoModel() {
  return new ScriptedModel([(request: ModelRequest) => callReply(`re: ${lastUserText(request.history)}`)], {
    repeatLast: true,
  });
}

/**
 * A poison message: accepted while no host runs its source, then taken by `attempts` turns that
 * died (as a killed worker's).
 */
async function wornOutMessage(store: SourceStore, source: Source, attempts: number) {
  const poison = messageFor(source, 'poison');
  await store.accept(poison);
  const [stored] = await store.inbox(source.id);
  for (let attempt = 0; attempt < attempts; attempt++) await store.countAttempt(source.id, stored!.key);
  return poison;
}

/** A tool with a side effect of its own: its call is checkpointed before it runs. */
const noteTool = defineTool({
  name: 'note',
  description: 'Notes something down.',
  category: 'test',
  optional: true,
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  response: { type: 'object', properties: {} },
}).implement(() => Promise.resolve({ forLLM: {} }));

describe('poison messages', () => {
  it('a turn counts an attempt on its items before it starts', async () => {
    const seen: number[] = [];
    const source = userSourceNumber(1);
    const { host, store } = createTestHost({
      model: new ScriptedModel(
        [
          async (request: ModelRequest) => {
            seen.push(...(await store.inbox(source.id)).map((stored) => stored.attempts));
            return callReply(`re: ${lastUserText(request.history)}`);
          },
        ],
        { repeatLast: true },
      ),
      host: { maxInboxAttempts: 5 },
    });
    await host.accept([messageFor(source, 'hello')]);
    await until(() => sourceAtRest(store, source.id));
    // The item was counted (1) before the model saw it, and consumed by the turn's checkpoint.
    expect(seen).toEqual([1]);
    expect(await store.inbox(source.id)).toEqual([]);
    await host.shutdown(1000);
  });

  it('a message whose turns kept starting and never finished is set aside with a notice; the next one runs', async () => {
    const source = userSourceNumber(2);
    const modelSaw: string[] = [];
    const { host, store, delivery } = createTestHost({
      model: new ScriptedModel(
        [
          (request: ModelRequest) => {
            modelSaw.push(lastUserText(request.history));
            return callReply(`re: ${lastUserText(request.history)}`);
          },
        ],
        { repeatLast: true },
      ),
      host: { maxInboxAttempts: 3 },
    });
    const poison = await wornOutMessage(store, source, 3);

    await host.accept([messageFor(source, 'after')]);
    await until(() => sourceAtRest(store, source.id));

    expect(modelSaw).toEqual(['after']);
    expect(delivery.requests.map((request) => request.texts[0])).toEqual([
      expect.stringContaining('set it aside') as string,
      're: after',
    ]);
    expect(delivery.requests[0]).toMatchObject({ replyToken: poison.replyToken, index: 0 });
    expect(userTexts(await storedHistory(store, source.id))).toEqual(['after']);
    await host.shutdown(1000);
  });

  it('a worn-out message the user took back goes without a notice: there is nothing to tell them', async () => {
    const source = userSourceNumber(5);
    const { host, store, delivery } = createTestHost({ model: echoModel(), host: { maxInboxAttempts: 3 } });
    const poison = { ...messageFor(source, 'poison'), messageId: 'm-poison' };
    await store.accept(poison);
    const [stored] = await store.inbox(source.id);
    for (let attempt = 0; attempt < 3; attempt++) await store.countAttempt(source.id, stored!.key);
    await store.accept({
      kind: 'unsend',
      eventId: 'e-unsend-poison',
      source,
      timestamp: Date.now(),
      messageId: 'm-poison',
    });

    await host.accept([messageFor(source, 'after')]);
    await until(() => sourceAtRest(store, source.id));

    expect(delivery.texts).toEqual(['re: after']);
    expect(userTexts(await storedHistory(store, source.id))).toEqual(['after']);
    await host.shutdown(1000);
  });

  it('the stored head says a message was set aside, so the inspector can say why it got no answer', async () => {
    const source = userSourceNumber(4);
    const { host, store, delivery } = createTestHost({
      model: new ScriptedModel([callReply('never asked')], { repeatLast: true }),
      host: { maxInboxAttempts: 2 },
    });
    const poison = await wornOutMessage(store, source, 2);

    host.notify(source.id);
    await until(async () => (await sourceAtRest(store, source.id)) && delivery.requests.length === 1);

    const head = await storedHead(store, source.id);
    const lastTurn = (head?.snapshot?.context as { lastTurn?: unknown } | undefined)?.lastTurn;
    expect(lastTurn).toMatchObject({
      id: poison.eventId,
      stopReason: 'quarantined',
      modelCalls: 0,
      replied: false,
      deliveries: 1,
    });
    expect(turnOutcome(lastTurn)).toMatchObject({
      answered: false,
      noAnswer: 'quarantine',
      noticeSent: true,
    });
    await host.shutdown(1000);
  });

  it('a set-aside notice LINE refuses does not block the chat: the message is set aside all the same', async () => {
    const source = userSourceNumber(5);
    // LINE refuses every notice (say the monthly quota is spent); answers still go out.
    class RefusingNotices extends RecordingDelivery {
      override deliver(request: DeliveryRequest) {
        if (request.texts[0]?.includes('set it aside')) {
          this.requests.push(request);
          return Promise.reject(new Error('LINE refused the notice'));
        }
        return super.deliver(request);
      }
    }
    const { host, store, delivery } = createTestHost({
      model: echoModel(),
      delivery: new RefusingNotices(),
      host: { maxInboxAttempts: 2 },
    });
    await wornOutMessage(store, source, 2);

    await host.accept([messageFor(source, 'after')]);
    await until(() => sourceAtRest(store, source.id));

    expect(delivery.texts.filter((text) => text.includes('set it aside'))).toHaveLength(1);
    expect(delivery.texts.at(-1)).toBe('re: after');
    expect(userTexts(await storedHistory(store, source.id))).toEqual(['after']);
    await host.shutdown(1000);
  });

  it('a turn whose resumption kills its process every time is set aside after the limit, with a notice; the chat goes on', async () => {
    const source = userSourceNumber(3);
    const store = new MemorySourceStore();
    // Each "process" dies while its reply is on the way: the delivery never ends, and the next
    // host takes the source over at once (the dead owner's process is gone).
    const hanging = { deliveries: 0, deliver: () => (hanging.deliveries++, new Promise<never>(() => {})) };
    const hostNumber = (n: number, delivery: RecordingDelivery | typeof hanging) =>
      createTestHost({
        model: echoModel(),
        store,
        delivery: delivery as RecordingDelivery,
        host: { maxInboxAttempts: 2, ownerId: `host-${n}`, isOwnerGone: () => true },
      }).host;

    const poison = messageFor(source, 'poison');
    await hostNumber(1, hanging).accept([poison]);
    await until(() => hanging.deliveries === 1);
    // Resumed twice (the limit), and each time it died again.
    for (const n of [2, 3]) {
      hostNumber(n, hanging).notify(source.id);
      await until(() => hanging.deliveries === n);
    }
    expect((await storedHead(store, source.id))?.busy).toBe(true);

    const delivery = new RecordingDelivery();
    const last = hostNumber(4, delivery);
    last.notify(source.id);
    await until(() => delivery.requests.length === 1);
    await last.accept([messageFor(source, 'after')]);
    await until(() => delivery.requests.length === 2 && sourceAtRest(store, source.id));

    // The poisoned reply never went out again; the user was told, and the next message ran.
    expect(delivery.requests.map((request) => request.texts[0])).toEqual([
      expect.stringContaining('set it aside') as string,
      're: after',
    ]);
    expect(delivery.requests[0]).toMatchObject({ replyToken: poison.replyToken });
    const history = await storedHistory(store, source.id);
    expect(userTexts(history)).toEqual(['poison', 'after']);
    // The set-aside call got its answer, so history keeps Gemini's turn rules.
    const answered = history.find((entry) => entry.role === 'tool');
    expect(answered).toMatchObject({
      results: [{ name: 'reply', response: { error: expect.stringContaining('set aside') as string } }],
    });
    await last.shutdown(1000);
  });

  // A model port (or a bug) that makes the conversation actor itself fail on a message: the
  // source reloaded and ran the turn again, forever — 2,400 model calls in 6 s with a short
  // backoff, one every 30 s with the default, and the chat never answered again.
  it.each([
    ['before its first checkpoint', []],
    ['after a tool of its own ran', ['note']],
  ])(
    'a turn whose conversation keeps failing %s is set aside after three tries; the chat goes on',
    async (_case, toolsFirst) => {
      const source = userSourceNumber(7);
      let poisonCalls = 0;
      const model: ModelPort = {
        name: 'failing on "poison"',
        generate: (request: ModelRequest) => {
          const text = lastUserText(request.history);
          if (text !== 'poison') return Promise.resolve(callReply(`re: ${text}`));
          poisonCalls++;
          if (toolsFirst.length > 0 && request.history.at(-1)?.role === 'user')
            return Promise.resolve(callTools(['note', { text: 'x' }]));
          // No usage: the machine's own bookkeeping throws on it.
          return Promise.resolve({ calls: [{ name: 'reply', args: { message: 'never' } }] } as never);
        },
      };
      const { host, store, delivery } = createTestHost({ model, tools: [noteTool] });

      await host.accept([messageFor(source, 'poison')]);
      await host.accept([messageFor(source, 'after')]);
      await until(() => delivery.texts.includes('re: after'), 10_000);
      await until(() => sourceAtRest(store, source.id));

      expect(delivery.texts).toEqual([expect.stringContaining('set it aside') as string, 're: after']);
      // Three failing calls; the tool's call is made once: a reload resumes after its checkpoint.
      expect(poisonCalls).toBe(3 + toolsFirst.length);
      await host.shutdown(1000);
    },
  );
});
