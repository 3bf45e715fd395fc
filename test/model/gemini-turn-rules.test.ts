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
