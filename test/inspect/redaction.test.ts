import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED, createRedactor } from '../../src/inspect/index.js';
import type { KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';
import { emulatorChatId, gatedModel, sayInEmulator, startEmulatorKaiwa, until } from './inspect-harness.js';

describe('createRedactor', () => {
  const redact = createRedactor(['channel-secret-0123456789', 'inspect-token-abcdef', 'short', undefined]);

  it.each([
    ['a reply token', { replyToken: 'b0a2f…' }, { replyToken: REDACTED }],
    ['an access token', { channelAccessToken: 'x' }, { channelAccessToken: REDACTED }],
    [
      'a secret',
      { channelSecret: 'x', nested: [{ apiKey: 'k', api_key: 'k' }] },
      { channelSecret: REDACTED, nested: [{ apiKey: REDACTED, api_key: REDACTED }] },
    ],
    [
      'an authorization header',
      { headers: { Authorization: 'Bearer abc' } },
      { headers: { Authorization: REDACTED } },
    ],
    [
      'a Bearer credential inside text',
      { text: 'use Bearer abc.def-1 now' },
      { text: `use Bearer ${REDACTED} now` },
    ],
    [
      'a known secret inside text',
      { text: 'my key is channel-secret-0123456789!' },
      { text: `my key is ${REDACTED}!` },
    ],
    ['a known secret as a key', { 'inspect-token-abcdef': 1 }, { [REDACTED]: 1 }],
  ])('hides %s', (_case, value, expected) => {
    expect(redact(value)).toEqual(expected);
  });

  it('hides a known secret whatever its length', () => {
    expect(redact({ text: 'a short word', note: 'x-short-y' })).toEqual({
      text: `a ${REDACTED} word`,
      note: `x-${REDACTED}-y`,
    });
    expect(createRedactor(['k', ''])({ text: 'key' })).toEqual({ text: `${REDACTED}ey` });
  });

  it('keeps token counts, null tokens and everything else', () => {
    const value = {
      usage: { promptTokens: 12, outputTokens: 3, cachedTokens: 0 },
      replyToken: null,
      text: 'a long word',
      turn: { id: 'evt-1', replied: true },
    };
    expect(redact(value)).toEqual(value);
  });

  it('copies an object shared by two fields twice, and cuts only real cycles', () => {
    const usage = { promptTokens: 1 };
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(redact({ turn: { usage }, lastTurn: { usage } })).toEqual({
      turn: { usage },
      lastTurn: { usage },
    });
    expect(redact(cyclic)).toEqual({ name: 'loop', self: '[circular]' });
  });

  it('copies: the original is left untouched', () => {
    const value = { replyToken: 'r' };
    redact(value);
    expect(value.replyToken).toBe('r');
  });
});

describe('the inspector never shows secrets', () => {
  let runtime: KaiwaRuntime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });

  it('redacts reply tokens and known secrets in its JSON and in its event stream, while a turn runs', async () => {
    const gated = gatedModel();
    runtime = await startEmulatorKaiwa({
      model: gated.model,
      env: { INSPECT_TOKEN: 'inspect-token-for-this-test-0123456789' },
    });
    const { url, emulator, host } = runtime;
    const auth = { authorization: 'Bearer inspect-token-for-this-test-0123456789' };
    const stream = await fetch(`${url}/inspect/api/stream`, { headers: auth });
    const events = new AbortController();
    let streamed = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
        streamed += decoder.decode(chunk, { stream: true });
        if (events.signal.aborted) return;
      }
    })();

    await sayInEmulator(
      url,
      `secrets: ${emulator!.channelSecret} ${emulator!.channelAccessToken} inspect-token-for-this-test-0123456789`,
    );
    const sourceId = await emulatorChatId(url, 'user', 'Aiko');
    await until(() => host.snapshotOf(sourceId)?.matches('generate'));
    const replyToken = (
      host.snapshotOf(sourceId)?.context.turn?.messages[0] as { replyToken?: string } | undefined
    )?.replyToken;
    expect(replyToken).toBeTruthy();
    const detail = await (await fetch(`${url}/inspect/api/sources/${sourceId}`, { headers: auth })).text();
    const list = await (await fetch(`${url}/inspect/api/sources`, { headers: auth })).text();
    gated.release();
    await host.whenSettled();
    await until(() => streamed.includes('"to":"idle"') && streamed.includes('done'));
    events.abort();
    void reading.catch(() => undefined);

    expect(detail).toContain('"replyToken":"[redacted]"');
    expect(detail).toContain('secrets: [redacted] [redacted] [redacted]');
    for (const text of [detail, list, streamed]) {
      expect(text).not.toContain(replyToken!);
      expect(text).not.toContain(emulator!.channelSecret);
      expect(text).not.toContain(emulator!.channelAccessToken);
      expect(text).not.toContain('inspect-token-for-this-test-0123456789');
    }
    expect(streamed).toContain('event: entry');
  });
});
