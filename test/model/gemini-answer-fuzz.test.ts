import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiModel } from '../../src/model/index.js';
import { openSqliteSourceStore } from '../../src/persistence/index.js';
import { seededRandom } from '../support/crash-scenario.js';
import {
  apiError,
  blockedPromptAnswer,
  candidateAnswer,
  FakeGeminiServer,
  finishedAnswer,
  functionCallPart,
  safetyStoppedAnswer,
  type FakeAnswer,
  type WirePart,
} from '../support/fake-gemini-server.js';
import { startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';
import { storedHistory, userTexts } from '../support/host-harness.js';
import { recordingLogger } from '../support/recording-logger.js';
import { botUserId, otherUserId, userId } from '../support/webhook-fixtures.js';

/**
 * A bounded fuzz run at the model edge: `npm start`'s runtime on SQLite, the real Gemini
 * adapter, and a fake Gemini that answers each call with a random answer — calls of every tool
 * with good and bad arguments, in parallel, signed, unnamed, nested; text, thoughts, empty and
 * data-less parts, every finish reason, blocks, 5xx and broken bodies. Whatever it answered,
 * every message gets an answer or the notice (silence only after `skip`), at most LINE's five
 * messages, and no request of any later turn is refused by Gemini: an answer kaiwa stored
 * never poisons its chat.
 */

const ROUNDS = 40;

function answers(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const signature = () => randomBytes(48).toString('base64');
  const unique = () => String(Math.floor(random() * 1e9));
  const nested = (depth: number) => {
    let value: Record<string, unknown> = { message: 'deep' };
    for (let level = 0; level < depth; level++) value = { inner: value };
    return value;
  };
  const messages: unknown[] = ['Hello!', '🍵'.repeat(3000), 'x'.repeat(5001), '', 42, null, ['a'], '\ud800'];
  const calls: (() => WirePart)[] = [
    () => functionCallPart('reply', { message: pick(messages) }),
    () => functionCallPart('skip', {}),
    () => functionCallPart('launch_rockets', { n: 3 }),
    () => functionCallPart('get_current_time', { time_zone: pick(['Asia/Tokyo', 'Mars/Olympus', 7]) }),
    () => functionCallPart('list_reminders', {}),
    () => functionCallPart('cancel_reminder', { id: pick(['nope', '', 'x'.repeat(100)]) }),
    () => functionCallPart('set_reminder', { text: 'tea', delay_minutes: pick([1, 0, 1e9, 1.5]) }),
    () => functionCallPart('find_tools', { query: pick(['weather', '', 'x'.repeat(2000)]) }),
    () => functionCallPart('reply', { message: 'with an id' }, { id: `call-${unique()}` }),
    () => functionCallPart('reply', nested(pick([40, 2000]))),
    () => ({ functionCall: { name: '', args: {} } }),
    () => ({ functionCall: { args: { message: 'no name' } } }) as unknown as WirePart,
    () => ({ functionCall: { name: 'reply', args: ['x'] } }) as unknown as WirePart,
  ];
  const signed = (): WirePart => {
    const part = pick(calls)();
    // Gemini signs a call it made; the fake then checks the signature comes back with it.
    const call = part.functionCall && { ...part.functionCall, id: `signed-${unique()}` };
    return { ...part, ...(call && { functionCall: call }), thoughtSignature: signature() };
  };
  const kinds: (() => FakeAnswer)[] = [
    () => candidateAnswer([pick(calls)()]),
    () => candidateAnswer([{ text: 'thinking', thought: true }, signed()]),
    () => candidateAnswer(Array.from({ length: 2 + Math.floor(random() * 5) }, () => pick(calls)())),
    () => candidateAnswer(Array.from({ length: 40 }, () => functionCallPart('get_current_time', {}))),
    () => candidateAnswer([{ text: pick(['Sure.', '', 'y'.repeat(30_000)]) }]),
    () => candidateAnswer([{ text: 'Here:' }, functionCallPart('reply', { message: 'hi' })]),
    () => candidateAnswer([{ text: 'hmm', thought: true, thoughtSignature: signature() }]),
    () => candidateAnswer([]),
    () => candidateAnswer([{}, functionCallPart('reply', { message: 'beside an empty part' })]),
    () => candidateAnswer([{ thoughtSignature: signature() }, functionCallPart('skip', {})]),
    () =>
      candidateAnswer([
        { functionResponse: { name: 'reply', response: {} } },
        functionCallPart('reply', { message: 'beside a response' }),
      ]),
    () => finishedAnswer('MAX_TOKENS'),
    () => finishedAnswer('MAX_TOKENS', [functionCallPart('reply', { message: 'cut short' })]),
    () => finishedAnswer('MALFORMED_FUNCTION_CALL'),
    () => finishedAnswer('FOO_BAR', [functionCallPart('reply', { message: 'unknown reason' })]),
    () => safetyStoppedAnswer(),
    () => blockedPromptAnswer('OTHER'),
    () => apiError(500, 'INTERNAL', 'An internal error has occurred.'),
    () => ({ body: { usageMetadata: {} } }),
    () => ({ raw: '{"candidates":[{"content":', status: 200 }),
  ];
  const called: string[] = [];
  const next = (): FakeAnswer => {
    const answer = pick(kinds)();
    const parts = 'body' in answer ? partsOf(answer.body) : [];
    called.push(...parts.flatMap((part) => (part.functionCall?.name ? [part.functionCall.name] : [])));
    return answer;
  };
  return { next, called };
}

function partsOf(body: unknown): WirePart[] {
  return (
    (body as { candidates?: { content?: { parts?: WirePart[] } }[] }).candidates?.[0]?.content?.parts ?? []
  );
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** kaiwa on SQLite with the real Gemini adapter, answered by `answers(random)` after `latency`. */
async function kaiwaAnsweredAtRandom(random: () => number, latency = () => 0) {
  const gemini = await FakeGeminiServer.start();
  closers.push(() => gemini.close());
  const script = answers(random);
  gemini.fallback = () => {
    const answer = script.next();
    return 'body' in answer ? { ...answer, delayMs: latency() } : answer;
  };
  const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-answer-fuzz-'));
  closers.push(() => rm(directory, { recursive: true, force: true }));
  const store = await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db') });
  closers.push(() => store.close());
  const { logger, lines } = recordingLogger('warn');
  const model = new GeminiModel({
    apiKey: 'test-key',
    baseUrl: gemini.baseUrl,
    cache: false,
    logger,
    retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 2 },
  });
  const kaiwa = await startKaiwaWithFakeLine({ model, store, overrides: { logger } });
  closers.push(() => kaiwa.close());
  const botMessages = () => kaiwa.line.emulator.entries().filter((entry) => entry.from === 'bot');
  const post = (user: string, text: string) =>
    kaiwa.post(
      JSON.stringify({
        destination: botUserId,
        events: [textEvent(kaiwa.line, { type: 'user', userId: user }, text)],
      }),
    );
  return { gemini, script, store, lines, kaiwa, botMessages, post };
}

describe('random Gemini answers through the runtime', () => {
  it.each([3, 11, 29])('seed %i: every message answered, no chat poisoned', async (seed) => {
    const random = seededRandom(seed);
    const { gemini, script, lines, kaiwa, botMessages, post } = await kaiwaAnsweredAtRandom(random);

    const problems: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const user = random() < 0.5 ? userId : otherUserId;
      const sentBefore = botMessages().length;
      const calledBefore = script.called.length;
      const response = await post(user, `message ${round}`);
      await kaiwa.kaiwa.host.whenSettled();
      const sent = botMessages().length - sentBefore;
      const skipped = script.called.slice(calledBefore).includes('skip');
      if (response.status !== 200) problems.push(`round ${round}: the webhook answered ${response.status}`);
      if (sent === 0 && !skipped) problems.push(`round ${round}: silence without skip`);
      if (sent > 5) problems.push(`round ${round}: ${sent} messages`);
    }

    expect(problems).toEqual([]);
    expect(gemini.rejections).toEqual([]);
    expect(lines.filter((line) => line.message === 'source actor failed')).toEqual([]);
    // The run went where it should: answers and notices, tools called.
    expect(botMessages().length).toBeGreaterThan(ROUNDS / 2);
    expect(new Set(script.called).size).toBeGreaterThanOrEqual(4);
  });

  it('bursts of messages while turns run, a slow model and LINE faults: none lost, none refused', async () => {
    const random = seededRandom(5);
    const { gemini, store, lines, kaiwa, botMessages, post } = await kaiwaAnsweredAtRandom(random, () =>
      Math.floor(random() * 80),
    );
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

    const sent = new Map<string, string[]>();
    const statuses: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      if (random() < 0.4) {
        // LINE's 429s, 5xx and dropped connections, some after the call took effect.
        const kind = pick(['too-many-requests', 'server-error', 'drop-connection'] as const);
        kaiwa.line.emulator.faults.inject({
          kind,
          endpoint: pick(['/v2/bot/message/reply', '/v2/bot/message/push']),
          ...(kind !== 'too-many-requests' && { delivered: random() < 0.5 }),
        });
      }
      const user = pick([userId, otherUserId]);
      const posts: Promise<Response>[] = [];
      for (let index = 0; index < 1 + Math.floor(random() * 3); index++) {
        const text = `r${round}m${index}`;
        sent.set(user, [...(sent.get(user) ?? []), text]);
        posts.push(post(user, text));
        if (random() < 0.5) await new Promise((resolve) => setTimeout(resolve, random() * 60));
      }
      statuses.push(...(await Promise.all(posts)).map((response) => response.status));
      if (random() < 0.3) await kaiwa.kaiwa.host.whenSettled();
    }
    await kaiwa.kaiwa.host.whenSettled();

    expect(new Set(statuses)).toEqual(new Set([200]));
    for (const [user, texts] of sent) {
      // Every message is in its chat's history, once, in order (merged turns included).
      expect(userTexts(await storedHistory(store, user))).toEqual(texts);
    }
    expect(gemini.rejections).toEqual([]);
    expect(lines.filter((line) => line.message === 'source actor failed')).toEqual([]);
    expect(botMessages().length).toBeGreaterThan(ROUNDS / 2);
  });
});
