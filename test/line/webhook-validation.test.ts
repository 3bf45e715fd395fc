import { botUserId } from '../support/webhook-fixtures.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryEntry, InboxItem } from '../../src/domain/index.js';
import { createLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, type ModelRequest } from '../../src/model/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import {
  deeplyNestedText,
  deeplyNestedType,
  groupIdAsArray,
  groupIdNotLineShaped,
  DEEPLY_NESTED,
  hugeText,
  serialize,
  textAsObject,
  textWithoutText,
} from '../support/hostile-events.js';
import { startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';
import { until } from '../support/until.js';

const USER = 'U' + 'a'.repeat(32);
const OTHER_USER = 'U' + 'b'.repeat(32);
const GROUP = 'C' + 'c'.repeat(32);
const SECRET = 'my-secret-words-4711';

const echo = () =>
  new ScriptedModel([(request: ModelRequest) => callReply(`re: ${lastUserText(request.history)}`)], {
    repeatLast: true,
  });

function lastUserText(history: readonly HistoryEntry[]) {
  const entry = history.findLast((item) => item.role === 'user');
  return entry?.role === 'user' ? entry.text : '';
}

/** A memory store that remembers every item the webhook accepted. */
class RecordingStore extends MemorySourceStore {
  readonly acceptedItems: InboxItem[] = [];
  override accept(item: InboxItem) {
    this.acceptedItems.push(item);
    return super.accept(item);
  }
}

let running: Awaited<ReturnType<typeof startKaiwaWithFakeLine>> | undefined;
let lines: string[] = [];
afterEach(async () => {
  await running?.close();
  running = undefined;
  lines = [];
});

async function start(store = new RecordingStore(), level: 'debug' | 'info' = 'info') {
  const logger = createLogger({ level, write: (line) => lines.push(line) });
  running = await startKaiwaWithFakeLine({ model: echo(), store, overrides: { logger } });
  return { running, store };
}

const post = (events: unknown[]) => running!.post(serialize({ destination: botUserId, events }));
const replies = () => running!.line.requestsTo('/v2/bot/message/reply');
const skipWarnings = () =>
  lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => String(line.message).startsWith('webhook event skipped'));

describe("the webhook checks every event against LINE's webhook schema", () => {
  it('skips a text that is an object, logs where (not what), and answers the next event of the batch', async () => {
    const { running, store } = await start();
    const bad = textAsObject(textEvent(running.line, { type: 'user', userId: USER }, 'x'), SECRET);
    const good = textEvent(running.line, { type: 'user', userId: USER }, 'hello after the bad one');

    const response = await post([bad, good]);

    expect(response.status).toBe(200);
    const reply = await until(() => replies()[0]);
    expect(reply.body).toMatchObject({ messages: [{ text: 're: hello after the bad one' }] });
    await running.kaiwa.host.whenSettled();
    expect(store.acceptedItems.map((item) => item.eventId)).toEqual([good.webhookEventId]);
    expect(skipWarnings()).toEqual([
      expect.objectContaining({
        level: 'warn',
        eventId: bad.webhookEventId,
        type: 'message',
        keyword: 'type',
        instancePath: '/message/text',
        schemaPath: expect.any(String) as string,
      }),
    ]);
    expect(lines.filter((line) => line.includes(SECRET))).toEqual([]);
  });

  it.each([
    ['an array', (event: ReturnType<typeof textEvent>) => groupIdAsArray(event)],
    ['a path', (event: ReturnType<typeof textEvent>) => groupIdNotLineShaped(event, '../../inbox')],
    ['a user id', (event: ReturnType<typeof textEvent>) => groupIdNotLineShaped(event, USER)],
    [
      'upper-case hex',
      (event: ReturnType<typeof textEvent>) => groupIdNotLineShaped(event, 'C' + 'C'.repeat(32)),
    ],
  ])('never lets a groupId that is %s reach the store', async (_case, breakIt) => {
    const { running, store } = await start();
    const bad = breakIt(textEvent(running.line, { type: 'group', groupId: GROUP, userId: USER }, 'x'));
    const good = textEvent(running.line, { type: 'group', groupId: GROUP, userId: USER }, 'fine');

    expect((await post([bad, good])).status).toBe(200);

    await until(() => replies()[0]);
    expect(store.acceptedItems.map((item) => item.source)).toEqual([{ kind: 'group', id: GROUP }]);
    expect(skipWarnings()).toEqual([
      expect.objectContaining({ eventId: bad.webhookEventId, instancePath: '/source/groupId' }),
    ]);
  });

  it('skips a user id of the wrong shape in a group (the sender becomes a profile key)', async () => {
    const { running, store } = await start();
    const event = textEvent(running.line, { type: 'group', groupId: GROUP, userId: 'Unot-a-line-id' }, 'x');

    expect((await post([event])).status).toBe(200);

    expect(store.acceptedItems).toEqual([]);
    expect(skipWarnings()).toEqual([expect.objectContaining({ instancePath: '/source/userId' })]);
  });

  it.each([
    ['in the text', deeplyNestedText],
    ['in the type it is logged with', deeplyNestedType],
    ['as the whole event', () => DEEPLY_NESTED],
  ])('answers 10⁴ levels of nesting %s with 200, not 5xx, and answers the rest', async (_case, breakIt) => {
    // At debug, where every skipped event is logged.
    const { running } = await start(new RecordingStore(), 'debug');
    const bad = breakIt(textEvent(running.line, { type: 'user', userId: USER }, 'x'));
    const good = textEvent(running.line, { type: 'user', userId: USER }, 'still here');

    const response = await post([bad, good]);

    expect(response.status).toBe(200);
    expect((await until(() => replies()[0])).body).toMatchObject({ messages: [{ text: 're: still here' }] });
  });

  it('skips a text longer than any LINE sends, without logging it', async () => {
    const { running, store } = await start();
    const bad = hugeText(textEvent(running.line, { type: 'user', userId: USER }, 'x'));

    expect((await post([bad])).status).toBe(200);

    expect(store.acceptedItems).toEqual([]);
    expect(skipWarnings()).toEqual([
      expect.objectContaining({ keyword: 'maxLength', instancePath: '/message/text' }),
    ]);
    expect(lines.every((line) => line.length < 2000)).toBe(true);
  });

  it('stores a text holding a lone surrogate escape with U+FFFD in its place, and answers it', async () => {
    const { running, store } = await start();
    // JSON writes half an emoji as an escape ("\ud83d"), which no UTF-8 encoder can carry on.
    const halfAnEmoji = '😀'.slice(0, 1);
    const event = textEvent(running.line, { type: 'user', userId: USER }, `smile ${halfAnEmoji}!`);

    expect((await post([event])).status).toBe(200);

    const reply = await until(() => replies()[0]);
    expect(store.acceptedItems).toEqual([expect.objectContaining({ text: 'smile \uFFFD!' })]);
    expect(reply.body).toMatchObject({ messages: [{ text: 're: smile \uFFFD!' }] });
  });

  it('answers 200 to a batch with one bad event and accepts every good one', async () => {
    const { running, store } = await start();
    const events = [
      textEvent(running.line, { type: 'user', userId: USER }, 'one'),
      textWithoutText(textEvent(running.line, { type: 'user', userId: OTHER_USER }, 'x')),
      textEvent(running.line, { type: 'user', userId: OTHER_USER }, 'two'),
      textEvent(running.line, { type: 'group', groupId: GROUP, userId: USER }, 'three'),
    ];

    const response = await post(events);

    expect(response.status).toBe(200);
    await until(() => replies().length === 3);
    expect(store.acceptedItems.map((item) => (item as { text: string }).text).sort()).toEqual([
      'one',
      'three',
      'two',
    ]);
    expect(skipWarnings()).toEqual([
      expect.objectContaining({
        eventId: events[1]!.webhookEventId,
        keyword: 'required',
        missingProperty: 'text',
      }),
    ]);
  });

  it('skips event, message and source types LINE may add later quietly (no warning)', async () => {
    const { running, store } = await start();
    const base = textEvent(running.line, { type: 'user', userId: USER }, 'x');
    const events = [
      { ...base, type: 'futureEvent' },
      { ...base, message: { type: 'hologram', id: '1' } },
      { ...base, source: { type: 'channel', channelId: '1' } },
    ];

    expect((await post(events)).status).toBe(200);

    expect(store.acceptedItems).toEqual([]);
    expect(skipWarnings()).toEqual([]);
  });
});
