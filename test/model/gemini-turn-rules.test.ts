import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import { GeminiModel } from '../../src/model/index.js';
import { toGeminiContents } from '../../src/model/gemini/gemini-contents.js';
import { sayAndWait, inbound, startConversation } from '../support/conversation-harness.js';
import {
  candidateAnswer,
  FakeGeminiServer,
  functionCallPart,
  type GenerateContentBody,
  type WirePart,
} from '../support/fake-gemini-server.js';
import { recordingLogger } from '../support/recording-logger.js';

// Gemini's turn rules (docs/model.md, "Turn rules"): the contents start with a user turn, a
// function call turn follows a user turn or a function response turn, and every function
// response answers a call of the model turn right before it. History bounds, unsends and
// restores can leave a history that breaks them; the adapter is the last line of defence.

let server: FakeGeminiServer;
beforeEach(async () => {
  server = await FakeGeminiServer.start();
});
afterEach(() => server.close());

const signature = () => randomBytes(256).toString('base64');
const replyCall = (message: string) =>
  candidateAnswer([functionCallPart('reply', { message }, { thoughtSignature: signature() })]);

function gemini(logger = recordingLogger().logger): GeminiModel {
  return new GeminiModel({ apiKey: 'test-key', baseUrl: server.baseUrl, cache: false, logger });
}

const roles = (body: GenerateContentBody | undefined) => body?.contents?.map((content) => content.role);

describe('Gemini turn rules through the conversation machine', () => {
  it('keeps the chat going after the oldest kept message is unsent', async () => {
    server.enqueue(replyCall('Hello Aiko!'), replyCall('It is sunny.'), replyCall('You are welcome.'));
    const { actor, delivery } = startConversation({ model: gemini() });

    await sayAndWait(actor, inbound('hello', { messageId: 'm-1' }));
    // The history now starts with the model's signed function call turn.
    actor.send({ type: 'line.unsend', messageId: 'm-1' });
    await sayAndWait(actor, inbound('weather?', { messageId: 'm-2' }));
    await sayAndWait(actor, inbound('thanks', { messageId: 'm-3' }));

    expect(server.rejections).toEqual([]);
    expect(delivery.texts).toEqual(['Hello Aiko!', 'It is sunny.', 'You are welcome.']);
    const [, second, third] = server.generateBodies;
    expect(roles(second)).toEqual(['user']);
    expect(roles(third)).toEqual(['user', 'model', 'user']);
  });

  it('keeps the chat going after a message in the middle is unsent', async () => {
    server.enqueue(replyCall('one'), replyCall('two'), replyCall('three'));
    const { actor, delivery } = startConversation({ model: gemini() });

    for (const [text, messageId] of [
      ['first', 'm-1'],
      ['second', 'm-2'],
    ]) {
      await sayAndWait(actor, inbound(text!, { messageId }));
    }
    actor.send({ type: 'line.unsend', messageId: 'm-2' });
    await sayAndWait(actor, inbound('third', { messageId: 'm-3' }));

    expect(server.rejections).toEqual([]);
    expect(delivery.texts).toEqual(['one', 'two', 'three']);
    expect(roles(server.generateBodies[2])).toEqual(['user', 'model', 'user', 'model', 'user']);
  });
});

describe('answers Gemini could not take back', () => {
  const nested = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { message: 'deep' };
    for (let level = 0; level < depth; level++) value = { inner: value };
    return value;
  };

  // Before, such a call was acted on and its part stored as sent: every later request of the
  // chat replayed it, and Gemini refused each one (the call had no response; the part no name).
  it.each([
    ['a call that names no tool', { functionCall: { name: '', args: {} } }, 'a function call without a name'],
    ['a call without a name', { functionCall: { args: { message: 'x' } } }, 'a function call without a name'],
    [
      'a call whose arguments are no object',
      { functionCall: { name: 'reply', args: ['hi'] } },
      'arguments of reply that are no object',
    ],
    [
      'a call nested 2,000 levels deep',
      functionCallPart('reply', nested(2000)),
      'arguments of reply nested deeper than 32 levels',
    ],
  ])('%s is asked again, never stored: the chat goes on', async (_case, badPart, unusableCall) => {
    server.enqueue(
      candidateAnswer([badPart as WirePart, functionCallPart('reply', { message: 'half' })]),
      replyCall('Hello!'),
      replyCall('Again.'),
    );
    const { logger, lines } = recordingLogger();
    const { actor, delivery } = startConversation({ model: gemini(logger) });

    await sayAndWait(actor, inbound('hello', { messageId: 'm-1' }));
    await sayAndWait(actor, inbound('more', { messageId: 'm-2' }));

    expect(server.rejections).toEqual([]);
    expect(delivery.texts).toEqual(['Hello!', 'Again.']);
    expect(lines.filter((line) => line.message === 'gemini gave no answer')).toEqual([
      expect.objectContaining({ verdict: 'malformed-call', unusableCall, next: 'asking again' }),
    ]);
  });

  it.each([
    ['an empty part', {}],
    ['a thought signature alone', { thoughtSignature: signature() }],
    ['a function response', { functionResponse: { name: 'reply', response: { status: 'sent' } } }],
  ])('%s beside a call is left out of history: the next request is taken', async (_case, emptyPart) => {
    server.enqueue(
      candidateAnswer([
        functionCallPart('reply', { message: 'Hello!' }, { thoughtSignature: signature() }),
        emptyPart,
      ]),
      replyCall('Again.'),
    );
    const { actor, delivery } = startConversation({ model: gemini() });

    await sayAndWait(actor, inbound('hello', { messageId: 'm-1' }));
    await sayAndWait(actor, inbound('more', { messageId: 'm-2' }));

    expect(server.rejections).toEqual([]);
    expect(delivery.texts).toEqual(['Hello!', 'Again.']);
    // The signed call went back as it came.
    expect(server.generateBodies[1]?.contents?.[1]?.parts).toEqual([
      expect.objectContaining({ functionCall: expect.objectContaining({ name: 'reply' }) as unknown }),
    ]);
  });
});

describe('toGeminiContents turn rules', () => {
  const user = (text: string): HistoryEntry => ({ role: 'user', eventId: text, text, timestamp: 0 });
  const call = (id: string): HistoryEntry => ({
    role: 'model',
    turnId: 't0',
    calls: [{ id, name: 'reply', args: { message: 'hi' } }],
  });
  const result = (id: string): HistoryEntry => ({
    role: 'tool',
    turnId: 't0',
    results: [{ callId: id, name: 'reply', response: { status: 'sent' } }],
  });

  it('starts with a user turn: whatever came before the first user entry is left out and counted', () => {
    const { contents, dropped } = toGeminiContents([
      result('old-0'),
      call('old-1'),
      result('old-1'),
      { role: 'model', turnId: 't0', text: 'anything else?', calls: [] },
      user('hello'),
    ]);

    expect(contents.map((content) => content.role)).toEqual(['user']);
    expect(dropped).toEqual({ beforeFirstUser: 4, unansweredResults: 0, interruptedCalls: 0 });
  });

  it('leaves out parts Gemini would refuse back, which entries stored before may hold', () => {
    const signed = { functionCall: { name: 'reply', args: { message: 'hi' } }, thoughtSignature: 'c2ln' };
    const { contents } = toGeminiContents([
      user('hello'),
      {
        role: 'model',
        turnId: 't0',
        calls: [{ id: 'c1', name: 'reply', args: { message: 'hi' } }],
        providerParts: [
          {},
          { thoughtSignature: 'c2ln' },
          { functionCall: { name: '', args: {} } },
          { functionResponse: { name: 'reply', response: {} } },
          signed,
        ],
      },
      result('c1'),
      user('more'),
    ]);

    expect(contents.map((content) => content.parts)).toEqual([
      [{ text: expect.stringContaining('hello') as string }],
      [signed],
      [
        { functionResponse: { name: 'reply', response: { status: 'sent' } } },
        { text: expect.stringContaining('more') as string },
      ],
    ]);
  });

  it('logs what it left out at debug, by count and never by content', async () => {
    const { logger, lines } = recordingLogger();
    server.enqueue(replyCall('hi'));

    await gemini(logger).generate({
      systemInstruction: 'You are a test bot.',
      history: [call('old-1'), result('old-1'), user('secret words')],
      tools: [],
      signal: new AbortController().signal,
    });

    const normalised = lines.filter((line) => line.message === 'gemini history normalised');
    expect(normalised).toEqual([
      expect.objectContaining({
        level: 'debug',
        dropped: { beforeFirstUser: 2, unansweredResults: 0, interruptedCalls: 0 },
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret words');
    expect(server.rejections).toEqual([]);
  });

  it('refuses to call Gemini with no user message at all, rather than answer nothing', async () => {
    const generation = gemini().generate({
      systemInstruction: 'You are a test bot.',
      history: [call('old-1'), result('old-1')],
      tools: [],
      signal: new AbortController().signal,
    });

    await expect(generation).rejects.toMatchObject({ name: 'ModelNoAnswerError', reason: 'empty-history' });
    expect(server.generateBodies).toEqual([]);
  });
});
