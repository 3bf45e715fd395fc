import { describe, expect, it } from 'vitest';
import { defaults } from '../../src/defaults/index.js';
import type { HistoryEntry, Source } from '../../src/domain/index.js';
import { callReply, type ModelPort, type ModelRequest, type ModelResponse } from '../../src/model/index.js';
import { MemorySourceStore, type SourceStore } from '../../src/persistence/index.js';
import { finishedMessage } from '../../src/tools/index.js';
import { createTestHost, messageFor, storedHistory, userSourceNumber } from '../support/host-harness.js';
import { until } from '../support/until.js';

/** Answers every turn; the first one only once `release` is called (a stuck turn). */
class StuckFirstModel implements ModelPort {
  readonly name = 'stuck-first';
  readonly seen = new Set<string>();
  calls = 0;
  release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.calls++;
    // A model call takes a turn of the event loop at least, as over the network: a loop of
    // turns would otherwise starve the timers.
    await new Promise((resolve) => setImmediate(resolve));
    const texts = userTextsAtEnd(request.history);
    for (const text of texts) this.seen.add(text);
    if (this.calls === 1) await this.released;
    return callReply(`re: ${texts.join('+')}`);
  }
}

function userTextsAtEnd(history: readonly HistoryEntry[]): string[] {
  const texts: string[] = [];
  for (let index = history.length - 1; index >= 0 && history[index]!.role === 'user'; index--)
    texts.unshift((history[index] as { text: string }).text);
  return texts;
}

/** A source on a memory store with this inbox cap, its first turn stuck: what comes piles up. */
async function stuckSource(sourceNumber: number, maxInbox: number) {
  const memory = new MemorySourceStore({ maxInbox });
  const model = new StuckFirstModel();
  const { host, delivery } = createTestHost({ model, store: memory });
  const source = userSourceNumber(sourceNumber);
  await host.accept([messageFor(source, 'first')]);
  await until(() => model.calls === 1);
  return { memory, model, host, delivery, source };
}

const unsendOf = (source: Source, messageId: string, eventId: string) => ({
  kind: 'unsend' as const,
  eventId,
  source,
  timestamp: Date.now(),
  messageId,
});

/** Whether the host settles within `ms`, or still runs turns (a loop) by then. */
function settledWithin(host: { whenSettled(): Promise<void> }, ms: number): Promise<string> {
  const running = new Promise<string>((resolve) => setTimeout(() => resolve('still turning'), ms).unref());
  return Promise.race([host.whenSettled().then(() => 'settled'), running]);
}

/** Counts how many items each inbox read asked for and got. */
function countingReads(store: SourceStore) {
  const reads: { limit: number | undefined; returned: number }[] = [];
  const counting = new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'inbox') return Reflect.get(target, property, receiver) as unknown;
      return async (sourceId: string, limit?: number) => {
        const items = await target.inbox(sourceId, limit);
        reads.push({ limit, returned: items.length });
        return items;
      };
    },
  });
  return { store: counting, reads };
}

describe('a full inbox behind a stuck turn (docs/security.md, "A source\'s inbox")', () => {
  it('4,000 messages behind a stuck turn: bounded inbox and reads, every message answered, merged or noticed', async () => {
    const memory = new MemorySourceStore({ maxInbox: 100 });
    const { store, reads } = countingReads(memory);
    const model = new StuckFirstModel();
    const { host, delivery } = createTestHost({ model, store });
    const source = userSourceNumber(7);

    await host.accept([messageFor(source, 'first')]);
    await until(() => model.calls === 1);
    const flood = Array.from({ length: 4000 }, (_, index) => messageFor(source, `m${index}`));
    for (let start = 0; start < flood.length; start += 50) {
      expect(await host.accept(flood.slice(start, start + 50))).toMatchObject({
        accepted: 50,
        duplicates: 0,
      });
    }

    // Stored: 100 messages (the stuck turn's own is one of them until its turn ends) and one
    // overflow item that counts the other 3,901.
    expect(memory.tables.inbox.get(source.id)?.size).toBe(101);
    const waiting = await memory.inbox(source.id);
    expect(waiting.at(-1)?.item).toMatchObject({ overflow: { count: 3901, addressed: 3901 } });
    const readsWhileStuck = reads.length;

    model.release();
    await host.whenSettled();

    // Every read of the pump is bounded, whatever waited: a page of 100, and behind a full page a
    // look further for an unfollow (of at most 1,000 items; here the 100 there are), once.
    for (const read of reads) expect(read.returned).toBeLessThanOrEqual(100);
    expect(reads.every((read) => read.limit !== undefined && read.limit <= 1000)).toBe(true);
    expect(reads.filter((read) => read.limit === 1000)).toHaveLength(1);
    expect(readsWhileStuck).toBeLessThan(10);
    // Answered or merged: the model saw the first message and each of the 99 kept.
    expect(model.seen).toEqual(new Set(['first', ...flood.slice(0, 99).map((message) => message.text)]));
    // Noticed: the other 3,901 are counted in history, and the user was told, with no model call.
    const history = await storedHistory(memory, source.id);
    expect(
      history.some((entry) => entry.role === 'user' && entry.text.startsWith('[3901 messages were not kept')),
    ).toBe(true);
    expect(delivery.texts.at(-1)).toBe(defaults.conversation.inboxFullNotice);
    expect(model.seen.has('[3901 messages were not kept: the inbox was full]')).toBe(false);
    expect(await memory.inbox(source.id)).toEqual([]);
  });

  it('an unfollow behind a full inbox takes every waiting message with it: no model call, nothing sent', async () => {
    // A busy group during a model outage: 100 messages pile up, someone removes the bot. Read a
    // page of 100 at a time, the leave lay beyond the first page: the turns ahead of it called
    // the model with words the chat asked to be gone, and answered a group the bot had left.
    const { memory, model, host, delivery, source } = await stuckSource(9, 100);
    await host.accept(Array.from({ length: 150 }, (_, index) => messageFor(source, `m${index}`)));
    const unfollow = {
      kind: 'forget' as const,
      eventId: 'e-unfollow-after-flood',
      source,
      timestamp: Date.now(),
      reason: 'unfollow' as const,
    };
    await host.accept([unfollow]);
    expect((await memory.inbox(source.id, 200)).length).toBeGreaterThan(100);

    model.release();
    await host.whenSettled();

    expect(model.calls).toBe(1);
    expect(delivery.texts.filter((text) => text !== 're: first')).toEqual([]);
    expect(await memory.inbox(source.id)).toEqual([]);
    expect(await storedHistory(memory, source.id)).toEqual([]);
  });

  it('a message taken back with a full page between it and its unsend is dropped unanswered, once', async () => {
    // The unsend marks the waiting message; read a page at a time, the unsend lay beyond the page,
    // so the message had a turn whose checkpoint the mark refused — and the next plan the same.
    const { memory, model, host, delivery, source } = await stuckSource(10, 100);
    const mistake = { ...messageFor(source, 'my password is hunter2'), messageId: 'm-mistake' };
    await host.accept([mistake]);
    await host.accept(Array.from({ length: 150 }, (_, index) => messageFor(source, `m${index}`)));
    await host.accept([unsendOf(source, 'm-mistake', 'e-unsend-mistake')]);

    model.release();
    expect(await settledWithin(host, 5_000)).toBe('settled');

    expect(model.seen.has('my password is hunter2')).toBe(false);
    expect(delivery.texts.some((text) => text.includes('hunter2'))).toBe(false);
    expect(await memory.inbox(source.id)).toEqual([]);
  });

  it('drops a message its unsend marked even when the unsend lies beyond any read', async () => {
    // More than a thousand items between them (unsends pass the cap): the mark alone tells.
    const { memory, model, host, delivery, source } = await stuckSource(11, 100);
    await host.accept([{ ...messageFor(source, 'my password is hunter2'), messageId: 'm-mistake' }]);
    await host.accept(Array.from({ length: 150 }, (_, index) => messageFor(source, `m${index}`)));
    for (let start = 0; start < 1_100; start += 100) {
      await host.accept(
        Array.from({ length: 100 }, (_, index) =>
          unsendOf(source, `m-gone-${start + index}`, `e-gone-${start + index}`),
        ),
      );
    }
    await host.accept([unsendOf(source, 'm-mistake', 'e-unsend-mistake')]);

    model.release();
    expect(await settledWithin(host, 20_000)).toBe('settled');

    expect(model.seen.has('my password is hunter2')).toBe(false);
    expect(delivery.texts.some((text) => text.includes('hunter2'))).toBe(false);
    expect(await memory.inbox(source.id)).toEqual([]);
  }, 60_000);

  it('keeps a reminder that comes due at a full inbox: the user cannot send it again', async () => {
    // Counted into the overflow item like a user's message, a reminder was lost: the notice asks
    // the user to send again what they still need, and a reminder is the bot's own errand.
    const { memory, model, host, source } = await stuckSource(8, 10);
    await host.accept(Array.from({ length: 20 }, (_, index) => messageFor(source, `m${index}`)));
    const due = { ...messageFor(source, '[reminder due] stretch'), lineEvent: 'reminder' as const };
    delete (due as { replyToken?: string }).replyToken;
    await host.accept([due, messageFor(source, 'after the reminder')]);
    // So is a tool's finished background work: the user could not ask for it again.
    const finished = finishedMessage(
      { toolName: 'render_report', source, idempotencyKey: 'turn-1:call-1' },
      { url: 'r.pdf' },
      Date.now(),
    );
    await host.accept([finished]);

    model.release();
    await host.whenSettled();

    expect(model.seen.has('[reminder due] stretch')).toBe(true);
    expect(model.seen.has('render_report: {"url":"r.pdf"}')).toBe(true);
    const history = await storedHistory(memory, source.id);
    const counted = history.flatMap((entry) =>
      entry.role === 'user' && entry.text.includes('not kept') ? [entry.text] : [],
    );
    expect(counted).toEqual([
      '[11 messages were not kept: the inbox was full]',
      '[1 message was not kept: the inbox was full]',
    ]);
  });
});
