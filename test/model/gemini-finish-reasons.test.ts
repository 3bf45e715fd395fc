import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaults } from '../../src/defaults/index.js';
import { GeminiModel, ModelNoAnswerError, type GeminiModelOptions } from '../../src/model/index.js';
import { sayAndWait, inbound, startConversation } from '../support/conversation-harness.js';
import {
  blockedPromptAnswer,
  candidateAnswer,
  finishedAnswer,
  FakeGeminiServer,
  functionCallPart,
  safetyStoppedAnswer,
  textAnswer,
  type FakeAnswer,
} from '../support/fake-gemini-server.js';

// Every finish reason ends in an answer, a notice or the model's deliberate `skip`; never in
// silence (docs/model.md, "Finish reasons"). These run the conversation machine on the real
// client against the fake, which answers each finish reason on demand.

let server: FakeGeminiServer;
beforeEach(async () => {
  server = await FakeGeminiServer.start();
});
afterEach(() => server.close());

const apology = defaults.conversation.apology;
const replying = (message: string) => candidateAnswer([functionCallPart('reply', { message })]);

async function turn(answers: FakeAnswer[], options: Partial<GeminiModelOptions> = {}) {
  server.enqueue(...answers);
  const model = new GeminiModel({
    apiKey: 'test-key',
    baseUrl: server.baseUrl,
    cache: false,
    random: () => 0,
    ...options,
  });
  const { actor, delivery } = startConversation({ model });
  const snapshot = await sayAndWait(actor, inbound('hello'));
  return { delivery, snapshot, bodies: server.generateBodies };
}

describe('Gemini finish reasons', () => {
  it('retries a MALFORMED_FUNCTION_CALL once, and answers', async () => {
    const { delivery, bodies } = await turn([finishedAnswer('MALFORMED_FUNCTION_CALL'), replying('Hi!')]);

    expect(delivery.texts).toEqual(['Hi!']);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toEqual(bodies[0]);
  });

  it('apologises when the call is malformed twice', async () => {
    const { delivery, snapshot, bodies } = await turn([
      finishedAnswer('MALFORMED_FUNCTION_CALL'),
      finishedAnswer('MALFORMED_FUNCTION_CALL'),
    ]);

    expect(delivery.texts).toEqual([apology]);
    expect(snapshot.context.lastTurn?.stopReason).toBe('model-failed');
    expect(bodies).toHaveLength(2);
  });

  it('retries MAX_TOKENS without parts with less thinking, and answers', async () => {
    const { delivery, bodies } = await turn([finishedAnswer('MAX_TOKENS'), replying('Short answer.')], {
      thinkingLevel: 'high',
    });

    expect(delivery.texts).toEqual(['Short answer.']);
    expect(bodies.map((body) => body.generationConfig?.thinkingConfig)).toEqual([
      { thinkingLevel: 'HIGH' },
      { thinkingLevel: 'LOW' },
    ]);
  });

  it('gives a 2.5 model a small thinking budget for the retry', async () => {
    const { delivery, bodies } = await turn([finishedAnswer('MAX_TOKENS'), replying('ok')], {
      model: 'gemini-2.5-flash',
    });

    expect(delivery.texts).toEqual(['ok']);
    expect(bodies[1]?.generationConfig?.thinkingConfig).toEqual({ thinkingBudget: 0 });
  });

  it('sends the notice when less thinking still runs out of tokens', async () => {
    const { delivery, bodies } = await turn([finishedAnswer('MAX_TOKENS'), finishedAnswer('MAX_TOKENS')]);

    expect(delivery.texts).toEqual([apology]);
    expect(bodies).toHaveLength(2);
  });

  it('sends the notice at once when thinking is already low', async () => {
    const { delivery, bodies } = await turn([finishedAnswer('MAX_TOKENS')], { thinkingLevel: 'low' });

    expect(delivery.texts).toEqual([apology]);
    expect(bodies).toHaveLength(1);
  });

  it('acts on the calls of a MAX_TOKENS answer that has them', async () => {
    const { delivery } = await turn([
      finishedAnswer('MAX_TOKENS', [functionCallPart('reply', { message: 'Made it.' })]),
    ]);

    expect(delivery.texts).toEqual(['Made it.']);
  });

  it.each([
    ['TOO_MANY_TOOL_CALLS', finishedAnswer('TOO_MANY_TOOL_CALLS')],
    ['OTHER', finishedAnswer('OTHER')],
    ['RECITATION', finishedAnswer('RECITATION', [{ text: 'quoted lyrics' }])],
    ['LANGUAGE', finishedAnswer('LANGUAGE')],
    ['SPII', finishedAnswer('SPII')],
    ['PROHIBITED_CONTENT with a call', finishedAnswer('PROHIBITED_CONTENT', [functionCallPart('reply', {})])],
    ['SAFETY', safetyStoppedAnswer()],
    ['a blocked prompt', blockedPromptAnswer('PROHIBITED_CONTENT')],
    ['a finish reason kaiwa does not know', finishedAnswer('SOMETHING_NEW')],
  ])('apologises for %s without asking again', async (_, answer) => {
    const { delivery, snapshot, bodies } = await turn([answer]);

    expect(delivery.texts).toEqual([apology]);
    expect(snapshot.context.lastTurn?.stopReason).toBe('model-failed');
    expect(bodies).toHaveLength(1);
  });

  it('asks once more, for reply or skip only, when the model wrote text instead of calling reply', async () => {
    const { delivery, bodies } = await turn([textAnswer('Hello there!'), replying('Hello there!')]);

    expect(delivery.texts).toEqual(['Hello there!']);
    expect(bodies[0]?.toolConfig).toBeUndefined();
    expect(bodies[1]?.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['reply', 'skip'] },
    });
  });

  it('apologises when the model still calls nothing', async () => {
    const { delivery, bodies } = await turn([textAnswer('Hello'), finishedAnswer('STOP')]);

    expect(delivery.texts).toEqual([apology]);
    expect(bodies).toHaveLength(2);
  });

  it('stays silent only when the model chose skip', async () => {
    const { delivery, snapshot } = await turn([
      candidateAnswer([functionCallPart('skip', { reason: 'not addressed to me' })]),
    ]);

    expect(delivery.requests).toEqual([]);
    expect(snapshot.context.lastTurn?.stopReason).toBe('final-tool');
  });

  it('throws a typed error that says what happened', async () => {
    server.enqueue(finishedAnswer('OTHER'));
    const model = new GeminiModel({ apiKey: 'test-key', baseUrl: server.baseUrl, cache: false });

    const generation = model.generate({
      systemInstruction: 's',
      history: [{ role: 'user', eventId: 'e1', text: 'hi', timestamp: 0 }],
      tools: [],
      signal: new AbortController().signal,
    });

    await expect(generation).rejects.toBeInstanceOf(ModelNoAnswerError);
    await expect(generation).rejects.toMatchObject({ reason: 'refused', finishReason: 'OTHER' });
  });
});
