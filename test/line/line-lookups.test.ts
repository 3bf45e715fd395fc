import { afterEach, describe, expect, it, vi } from 'vitest';
import type { messagingApi, webhook } from '@line/bot-sdk';
import type { HistoryEntry } from '../../src/domain/index.js';
import { LineEmulator } from '../../src/line/emulator/line-emulator.js';
import { LoadingAnimation } from '../../src/line/loading-animation.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply } from '../../src/model/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';
import { startKaiwaWithFakeLine } from '../support/kaiwa-under-test.js';
import { webhookBody } from '../support/webhook-fixtures.js';
import { until } from '../support/until.js';

let running: Awaited<ReturnType<typeof startKaiwaWithFakeLine>> | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  vi.useRealTimers();
});

let sequence = 0;
/** A message event as LINE sends it; typed loosely so tests can build unusual ones. */
function event(source: Record<string, string>, message: Record<string, unknown>): webhook.Event {
  sequence++;
  return {
    type: 'message',
    mode: 'active',
    timestamp: Date.now(),
    source,
    webhookEventId: `01LOOKUPS${String(sequence).padStart(17, '0')}`,
    deliveryContext: { isRedelivery: false },
    replyToken: `token-${sequence}`,
    // LINE sends a quote token with every text, image, video and sticker (webhook.yml requires it).
    message: { id: String(5000 + sequence), quoteToken: `quote-${sequence}`, ...message },
  } as unknown as webhook.Event;
}

const senderOf = (history: readonly HistoryEntry[]) => {
  const entry = history.findLast((item) => item.role === 'user');
  return entry?.role === 'user' ? entry.sender : undefined;
};

function gatedModel() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    model: new ScriptedModel([async () => (await gate, callReply('done'))], { repeatLast: true }),
    release,
  };
}

describe('loading animation', () => {
  it('shows in a 1:1 chat once the turn outlasts the delay, with loadingSeconds a multiple of 5', async () => {
    const { model, release } = gatedModel();
    running = await startKaiwaWithFakeLine({
      model,
      env: { KAIWA_LOADING_DELAY_MS: '30', KAIWA_LOADING_SECONDS: '10' },
    });
    const userId = LineEmulator.idFor('user', 'Aiko');

    await running.post(
      JSON.stringify(webhookBody([event({ type: 'user', userId }, { type: 'text', text: 'think hard' })])),
    );
    await until(() => running!.line.requestsTo('/v2/bot/chat/loading/start').length > 0);
    release();
    await running.kaiwa.host.whenSettled();

    const [loading] = running.line.requestsTo('/v2/bot/chat/loading/start');
    expect(loading?.body).toEqual({ chatId: userId, loadingSeconds: 10 });
    expect(loading?.schemaProblems).toEqual([]);
  });

  it('never shows in a group or room', async () => {
    const { model, release } = gatedModel();
    running = await startKaiwaWithFakeLine({ model, env: { KAIWA_LOADING_DELAY_MS: '10' } });
    const groupId = LineEmulator.idFor('group', 'Team');

    await running.post(
      JSON.stringify(
        webhookBody([
          event({ type: 'group', groupId, userId: 'U' + '2'.repeat(32) }, { type: 'text', text: 'hi' }),
        ]),
      ),
    );
    await until(() => model.calls.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 100)); // well past the delay
    release();
    await running.kaiwa.host.whenSettled();

    expect(running.line.requestsTo('/v2/bot/chat/loading/start')).toEqual([]);
  });

  it('the fake LINE refuses a loading animation for a group, as LINE does', async () => {
    running = await startKaiwaWithFakeLine({ model: new ScriptedModel([]) });
    const response = await fetch(`${running.line.url}/v2/bot/chat/loading/start`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${running.line.emulator.channelAccessToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ chatId: 'C' + '3'.repeat(32), loadingSeconds: 5 }),
    });
    expect(response.status).toBe(400);
  });

  it('renews itself while the turn runs and stops when it ends', () => {
    vi.useFakeTimers();
    const shown: unknown[] = [];
    const client = {
      showLoadingAnimation: (request: unknown) => {
        shown.push(request);
        return Promise.resolve({});
      },
    } as unknown as messagingApi.MessagingApiClient;
    const loading = new LoadingAnimation({ client, logger: silentLogger, delayMs: 1000, seconds: 5 });
    const source = { kind: 'user' as const, id: 'U1' };

    loading.turnStarted(source);
    vi.advanceTimersByTime(999);
    expect(shown).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(shown).toEqual([{ chatId: 'U1', loadingSeconds: 5 }]);
    vi.advanceTimersByTime(4000);
    expect(shown).toHaveLength(2);
    loading.turnEnded(source);
    vi.advanceTimersByTime(60_000);
    expect(shown).toHaveLength(2);
  });

  it('refuses a loading duration LINE would refuse', () => {
    const client = {} as messagingApi.MessagingApiClient;
    expect(() => new LoadingAnimation({ client, logger: silentLogger, seconds: 7 })).toThrow('multiple of 5');
  });
});

describe('images for the model', () => {
  const png = Buffer.from('89504e470d0a1a0a' + 'ab'.repeat(1500), 'hex'); // ~1.5 KB

  it('downloads the image of the current turn with the content API and gives it to the model', async () => {
    const model = new ScriptedModel([callReply('nice picture')]);
    running = await startKaiwaWithFakeLine({ model });
    running.line.emulator.storeContent('777', 'image/png', png);

    await running.post(
      JSON.stringify(
        webhookBody([
          event(
            { type: 'user', userId: 'U' + '4'.repeat(32) },
            { type: 'image', id: '777', contentProvider: { type: 'line' } },
          ),
        ]),
      ),
    );
    await running.kaiwa.host.whenSettled();

    expect(model.calls[0]?.media).toEqual([
      {
        eventId: expect.any(String) as string,
        kind: 'image',
        mimeType: 'image/png',
        data: png.toString('base64'),
      },
    ]);
    expect(
      JSON.stringify(running.kaiwa.host.snapshotOf('U' + '4'.repeat(32))?.context.history),
    ).not.toContain(png.toString('base64').slice(0, 40));
  });

  it.each([
    ['larger than the cap', { KAIWA_MEDIA_MAX_BYTES: '1024' }, true],
    ['gone from LINE (404)', {}, false],
  ])('leaves out an image %s, and the turn still runs', async (_case, env, stored) => {
    const model = new ScriptedModel([callReply('I could not see it')]);
    running = await startKaiwaWithFakeLine({ model, env });
    if (stored) running.line.emulator.storeContent('778', 'image/png', png);

    await running.post(
      JSON.stringify(
        webhookBody([
          event(
            { type: 'user', userId: 'U' + '5'.repeat(32) },
            { type: 'image', id: '778', contentProvider: { type: 'line' } },
          ),
        ]),
      ),
    );
    await running.kaiwa.host.whenSettled();

    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]?.media).toEqual([]);
    expect(running.line.requestsTo('/v2/bot/message/reply')).toHaveLength(1);
  });
});

describe('display names and group details', () => {
  it('looks a 1:1 sender up once and remembers the name', async () => {
    const model = new ScriptedModel([callReply('hi Aiko')], { repeatLast: true });
    running = await startKaiwaWithFakeLine({ model });
    const { userId } = running.line.emulator.registerSpeaker('Aiko');

    for (const text of ['hello', 'again']) {
      await running.post(
        JSON.stringify(webhookBody([event({ type: 'user', userId }, { type: 'text', text })])),
      );
      await running.kaiwa.host.whenSettled();
    }

    expect(model.calls.map((call) => senderOf(call.history))).toEqual([
      { userId, displayName: 'Aiko' },
      { userId, displayName: 'Aiko' },
    ]);
    expect(running.line.requestsTo(`/v2/bot/profile/${userId}`)).toHaveLength(1);
  });

  it("asks again after a few minutes when a lookup failed on LINE's side, not after a day", async () => {
    // A failed lookup was remembered like a found one: after one 500 the chat showed the user
    // as an id to the model for a day.
    let now = Date.now();
    const model = new ScriptedModel([callReply('hi')], { repeatLast: true });
    running = await startKaiwaWithFakeLine({ model, overrides: { clock: { now: () => now } } });
    const { userId } = running.line.emulator.registerSpeaker('Aiko');
    running.line.failNext(`/v2/bot/profile/${userId}`, 500);
    const say = async (text: string) => {
      await running!.post(
        JSON.stringify(webhookBody([event({ type: 'user', userId }, { type: 'text', text })])),
      );
      await running!.kaiwa.host.whenSettled();
    };

    await say('hello'); // the lookup fails
    now += 60_000;
    await say('again'); // within minutes: not asked again
    now += 15 * 60_000;
    await say('and now'); // asked again, found

    expect(model.calls.map((call) => senderOf(call.history))).toEqual([
      { userId },
      { userId },
      { userId, displayName: 'Aiko' },
    ]);
    expect(running.line.requestsTo(`/v2/bot/profile/${userId}`)).toHaveLength(2);

    // A profile LINE has not (404: not a friend) is LINE's answer: not asked for again that day.
    const stranger = 'U' + '7'.repeat(32);
    for (const text of ['hi', 'hi again']) {
      await running.post(
        JSON.stringify(webhookBody([event({ type: 'user', userId: stranger }, { type: 'text', text })])),
      );
      await running.kaiwa.host.whenSettled();
      now += 15 * 60_000;
    }
    expect(running.line.requestsTo(`/v2/bot/profile/${stranger}`)).toHaveLength(1);
  });

  it('uses the group member profile in a group, and tolerates a 404', async () => {
    const model = new ScriptedModel([callReply('ok')], { repeatLast: true });
    running = await startKaiwaWithFakeLine({ model });
    const { userId: ken, chatId: groupId } = running.line.emulator.registerSpeaker('Ken', {
      kind: 'group',
      name: 'Team',
    });
    const stranger = 'U' + '6'.repeat(32);

    await running.post(
      JSON.stringify(
        webhookBody([event({ type: 'group', groupId, userId: ken }, { type: 'text', text: 'yo' })]),
      ),
    );
    await running.kaiwa.host.whenSettled();
    await running.post(
      JSON.stringify(
        webhookBody([
          event({ type: 'group', groupId, userId: stranger }, { type: 'text', text: 'who am I' }),
        ]),
      ),
    );
    await running.kaiwa.host.whenSettled();

    expect(running.line.requestsTo(`/v2/bot/group/${groupId}/member/${ken}`)).toHaveLength(1);
    expect(senderOf(model.calls[0]!.history)).toEqual({ userId: ken, displayName: 'Ken' });
    expect(senderOf(model.calls[1]!.history)).toEqual({ userId: stranger });
  });

  it('fetches the group name and member count when the bot joins', async () => {
    const store = new MemorySourceStore();
    running = await startKaiwaWithFakeLine({ model: new ScriptedModel([callReply('hello all')]), store });
    const { chatId: groupId } = running.line.emulator.registerSpeaker('Mei', {
      kind: 'group',
      name: 'Weekend trip',
    });
    running.line.emulator.registerSpeaker('Ken', { kind: 'group', name: 'Weekend trip' });
    const join = {
      ...event({ type: 'group', groupId }, {}),
      type: 'join',
      message: undefined,
    } as unknown as webhook.Event;

    await running.post(JSON.stringify(webhookBody([join])));
    await running.kaiwa.host.whenSettled();

    // LINE's count "excludes the LINE Official Account" (GroupMemberCountResponse): Mei and Ken.
    expect(running.kaiwa.host.snapshotOf(groupId)?.context.chat).toEqual({
      title: 'Weekend trip',
      memberCount: 2,
    });
  });
});
