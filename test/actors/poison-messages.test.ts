import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import { ScriptedModel, callReply, type ModelRequest } from '../../src/model/index.js';
import {
  createTestHost,
  messageFor,
  sourceAtRest,
  storedHistory,
  userSourceNumber,
  userTexts,
} from '../support/host-harness.js';
import { until } from '../support/until.js';

// Poison (docs/aws.md, "Poison and long drains"): every turn counts an attempt on the inbox
// items it takes before it starts; a message whose turns started `maxInboxAttempts` times and
// never finished (its process died each time) is set aside with a notice, and the chat goes on.

function lastUserText(history: readonly HistoryEntry[]): string {
  const last = history.findLast((entry) => entry.role === 'user');
  return last?.role === 'user' ? last.text : '';
}

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
    const poison = messageFor(source, 'poison');
    // Accepted while no host runs the source, and taken by three turns that died (as a killed worker's).
    await store.accept(poison);
    const [stored] = await store.inbox(source.id);
    for (let attempt = 0; attempt < 3; attempt++) await store.countAttempt(source.id, stored!.key);

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
});
