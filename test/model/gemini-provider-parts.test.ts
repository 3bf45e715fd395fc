import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HistoryEntry, ModelEntry } from '../../src/domain/index.js';
import { compactProviderParts, GeminiModel } from '../../src/model/index.js';
import { toGeminiContents } from '../../src/model/gemini/gemini-contents.js';
import { sayAndWait, inbound, startConversation } from '../support/conversation-harness.js';
import {
  candidateAnswer,
  FakeGeminiServer,
  functionCallPart,
  type WirePart,
} from '../support/fake-gemini-server.js';

// A model entry keeps its text and calls once (docs/model.md, "Provider parts"): the provider
// parts hold only what those cannot rebuild — thought signatures, Gemini's call ids, part order
// — and refer to the text and the call arguments instead of repeating them.

let server: FakeGeminiServer;
beforeEach(async () => {
  server = await FakeGeminiServer.start();
});
afterEach(() => server.close());

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('provider parts stored once', () => {
  it('stores a signed reply’s message once, and replays it byte for byte', async () => {
    const message = 'とても長い返事です。'.repeat(200); // 2,000 characters, 6,000 bytes
    const signature = randomBytes(768).toString('base64'); // 1 KB, like Gemini's
    const signedReply: WirePart[] = [
      functionCallPart('reply', { message }, { id: 'c-1', thoughtSignature: signature }),
    ];
    server.enqueue(
      candidateAnswer(signedReply),
      candidateAnswer([functionCallPart('skip', { reason: 'nothing to add' })]),
    );
    const { actor, delivery } = startConversation({
      model: new GeminiModel({ apiKey: 'test-key', baseUrl: server.baseUrl, cache: false }),
    });

    const afterFirst = await sayAndWait(actor, inbound('tell me a long story'));
    await sayAndWait(actor, inbound('thanks'));

    const entry = afterFirst.context.history.find((item) => item.role === 'model')!;
    expect(delivery.texts).toEqual([message]);
    // The message and the signature, once each, and a little structure.
    expect(bytes(entry)).toBeLessThan(bytes(message) + bytes(signature) + 300);
    expect(server.rejections).toEqual([]);
    expect(server.generateBodies[1]?.contents?.[1]).toEqual({ role: 'model', parts: signedReply });
  });

  it('refers to a single text part instead of repeating it, and keeps thought parts verbatim', () => {
    const parts: WirePart[] = [
      { text: 'a thought summary', thought: true },
      { text: 'Here is what I found.', thoughtSignature: 'U0lH' },
    ];
    const entry = compactProviderParts({
      role: 'model',
      turnId: 't1',
      text: 'Here is what I found.',
      calls: [],
      providerParts: parts as unknown as ModelEntry['providerParts'],
    });

    expect(entry.providerParts).toEqual([parts[0], { text: null, thoughtSignature: 'U0lH' }]);
    expect(toGeminiContents([user, entry]).contents[1]).toEqual({ role: 'model', parts });
  });
});

const user: HistoryEntry = { role: 'user', eventId: 'e1', text: 'weather?', timestamp: 0 };
const oldShape: ModelEntry = {
  role: 'model',
  turnId: 't1',
  calls: [
    { id: 'g-1', name: 'get_weather', args: { location: 'Tokyo' } },
    { id: 'g-2', name: 'get_weather', args: { location: 'Osaka' } },
  ],
  providerParts: [
    {
      functionCall: { id: 'g-1', name: 'get_weather', args: { location: 'Tokyo' } },
      thoughtSignature: 'c2lnLTE=',
    },
    { functionCall: { id: 'g-2', name: 'get_weather', args: { location: 'Osaka' } } },
  ],
};

describe('entries stored in the old shape', () => {
  it('replay as they are, before any migration', () => {
    expect(toGeminiContents([user, oldShape]).contents[1]).toEqual({
      role: 'model',
      parts: oldShape.providerParts,
    });
  });

  it('migrate to the compact shape, which replays the same parts in fewer bytes', () => {
    const migrated = compactProviderParts(oldShape);

    expect(migrated.providerParts).toEqual([
      { functionCall: { id: 'g-1', name: 'get_weather' }, thoughtSignature: 'c2lnLTE=' },
      { functionCall: { id: 'g-2', name: 'get_weather' } },
    ]);
    expect(bytes(migrated)).toBeLessThan(bytes(oldShape));
    expect(toGeminiContents([user, migrated]).contents).toEqual(toGeminiContents([user, oldShape]).contents);
    expect(compactProviderParts(migrated)).toEqual(migrated);
  });

  it('keeps the arguments of a part that does not match its call', () => {
    const odd: ModelEntry = {
      ...oldShape,
      providerParts: [
        { functionCall: { id: 'g-1', name: 'get_weather', args: { location: 'Kyoto' } } },
        { functionCall: { id: 'g-2', name: 'get_weather', args: { location: 'Osaka' } } },
      ],
    };

    expect(compactProviderParts(odd).providerParts?.[0]).toEqual(odd.providerParts?.[0]);
  });
});
