import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import { defaults } from '../../src/defaults/index.js';
import { GeminiModel, type GeminiModelOptions, type ModelRequest } from '../../src/model/index.js';
import { defineTool } from '../../src/tools/index.js';
import { inbound, say, startConversation, untilIdle } from '../support/conversation-harness.js';
import {
  blockedPromptAnswer,
  candidateAnswer,
  FakeGeminiServer,
  functionCallPart,
  safetyStoppedAnswer,
  textAnswer,
  type WirePart,
} from '../support/fake-gemini-server.js';
import { recordingLogger } from '../support/recording-logger.js';

let server: FakeGeminiServer;
beforeEach(async () => {
  server = await FakeGeminiServer.start();
});
afterEach(() => server.close());

function geminiFor(options: Partial<GeminiModelOptions> = {}): GeminiModel {
  return new GeminiModel({
    apiKey: 'test-key',
    baseUrl: server.baseUrl,
    cache: false,
    random: () => 0,
    ...options,
  });
}

function request(history: HistoryEntry[], overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    systemInstruction: 'You are a test bot.',
    history,
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

const hello: HistoryEntry = {
  role: 'user',
  eventId: 'e1',
  text: 'hello',
  timestamp: Date.UTC(2026, 10, 22, 10, 0),
  sender: { userId: 'U1', displayName: 'Aiko' },
};

/** Large and random, like Gemini's: any truncation or re-encoding shows. */
const signature = () => randomBytes(384).toString('base64');

const locationSchema = {
  type: 'object',
  properties: { location: { type: 'string' } },
  required: ['location'],
  additionalProperties: false,
} as const;

/** Tokyo waits until Osaka ran, so results settle in the opposite order of the calls. */
function weatherTool() {
  let osakaRan: () => void = () => undefined;
  const osakaDone = new Promise<void>((resolve) => (osakaRan = resolve));
  return defineTool({
    name: 'get_weather',
    description: 'The weather in a city.',
    category: 'information',
    optional: true,
    parameters: locationSchema,
    response: { type: 'object', properties: { forecast: { type: 'string' } }, required: ['forecast'] },
  }).implement(async (args) => {
    if (args.location === 'Tokyo') await osakaDone;
    else osakaRan();
    return { forLLM: { forecast: args.location === 'Tokyo' ? 'sunny' : 'rainy' } };
  });
}

describe('GeminiModel through the conversation machine', () => {
  it('runs several calls of one response, answers them by id in call order and replays signatures byte for byte', async () => {
    const tokyoSignature = signature();
    const replySignature = signature();
    const firstParts: WirePart[] = [
      functionCallPart(
        'get_weather',
        { location: 'Tokyo' },
        { id: 'call-tokyo', thoughtSignature: tokyoSignature },
      ),
      functionCallPart('get_weather', { location: 'Osaka' }, { id: 'call-osaka' }),
    ];
    const replyParts: WirePart[] = [
      functionCallPart(
        'reply',
        { message: 'Tokyo is sunny, Osaka rainy.' },
        { thoughtSignature: replySignature },
      ),
    ];
    server.enqueue(
      candidateAnswer(firstParts),
      candidateAnswer(replyParts),
      candidateAnswer([functionCallPart('skip', { reason: 'nothing to add' })]),
    );
    const { actor, delivery } = startConversation({ model: geminiFor(), tools: [weatherTool()] });

    say(actor, inbound('Weather in Tokyo and Osaka?'));
    await untilIdle(actor);
    say(actor, inbound('thanks'));
    const snapshot = await untilIdle(actor);

    expect(server.rejections).toEqual([]);
    expect(delivery.texts).toEqual(['Tokyo is sunny, Osaka rainy.']);
    const [first, second, third] = server.generateBodies;
    expect(first?.systemInstruction).toEqual({ role: 'user', parts: [{ text: 'You are a test bot.' }] });
    expect(
      first?.tools?.[0]?.functionDeclarations?.find((declaration) => declaration.name === 'get_weather'),
    ).toEqual({
      name: 'get_weather',
      description: 'The weather in a city.',
      parametersJsonSchema: locationSchema,
      responseJsonSchema: {
        type: 'object',
        properties: { forecast: { type: 'string' } },
        required: ['forecast'],
      },
    });
    // The model turn goes back exactly as Gemini sent it.
    expect(second?.contents?.[1]).toEqual({ role: 'model', parts: firstParts });
    expect(second?.contents?.[1]?.parts?.[0]?.thoughtSignature).toBe(tokyoSignature);
    expect(second?.contents?.[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'call-tokyo', name: 'get_weather', response: { forecast: 'sunny' } } },
        { functionResponse: { id: 'call-osaka', name: 'get_weather', response: { forecast: 'rainy' } } },
      ],
    });
    // The next turn sees the whole history in order; the reply call had no Gemini id, so its response has none.
    expect(third?.contents?.map((content) => content.role)).toEqual([
      'user',
      'model',
      'user',
      'model',
      'user',
    ]);
    expect(third?.contents?.[3]).toEqual({ role: 'model', parts: replyParts });
    expect(third?.contents?.[4]?.parts).toEqual([
      { functionResponse: { name: 'reply', response: { status: 'sent' } } },
      { text: expect.stringMatching(/^\[Aiko \d{4}-\d\d-\d\d \d\d:\d\d UTC\] thanks$/) as string },
    ]);
    // Stored without repeating the arguments the calls hold; replayed in full above.
    expect(
      snapshot.context.history.filter((entry) => entry.role === 'model').map((entry) => entry.providerParts),
    ).toEqual([
      [
        { functionCall: { id: 'call-tokyo', name: 'get_weather' }, thoughtSignature: tokyoSignature },
        { functionCall: { id: 'call-osaka', name: 'get_weather' } },
      ],
      [{ functionCall: { name: 'reply' }, thoughtSignature: replySignature }],
      undefined,
    ]);
  });

  it('answers a blocked prompt with the notice, and logs why without the message', async () => {
    server.enqueue(blockedPromptAnswer('PROHIBITED_CONTENT'));
    const { logger, lines } = recordingLogger();
    const { actor, delivery } = startConversation({ model: geminiFor({ logger }) });

    say(actor, inbound('something bad'));
    const snapshot = await untilIdle(actor);

    expect(delivery.texts).toEqual([defaults.conversation.apology]);
    expect(snapshot.context.lastTurn?.stopReason).toBe('model-failed');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'gemini gave no answer',
        verdict: 'refused',
        blockReason: 'PROHIBITED_CONTENT',
        next: 'notice',
      }),
    );
    expect(JSON.stringify(lines)).not.toContain('something bad');
  });
});

describe('GeminiModel.generate', () => {
  it('returns several calls of one response, keeping Gemini ids and omitting absent ones', async () => {
    server.enqueue(
      candidateAnswer([
        functionCallPart('get_weather', { location: 'Tokyo' }, { id: 'a1' }),
        functionCallPart('get_weather', { location: 'Nara' }),
        functionCallPart('reply', { message: 'checking' }),
      ]),
    );

    const response = await geminiFor().generate(request([hello]));

    expect(response.calls).toEqual([
      { id: 'a1', name: 'get_weather', args: { location: 'Tokyo' } },
      { name: 'get_weather', args: { location: 'Nara' } },
      { name: 'reply', args: { message: 'checking' } },
    ]);
  });

  it('calls the default model with its own thinking and sampling: nothing set, nothing sent', async () => {
    server.enqueue(textAnswer('hi'));

    await new GeminiModel({ apiKey: 'test-key', baseUrl: server.baseUrl, cache: false }).generate(
      request([hello]),
    );

    expect(server.requests[0]?.path).toBe('/v1beta/models/gemini-3.6-flash:generateContent');
    expect(server.generateBodies[0]?.generationConfig ?? {}).toEqual({});
  });

  it('sends the thinking level, the sampling parameters that are set, and reports usage with thinking', async () => {
    server.enqueue(
      candidateAnswer([{ text: 'hi' }], {
        promptTokenCount: 300,
        candidatesTokenCount: 20,
        thoughtsTokenCount: 80,
      }),
    );

    const response = await geminiFor({
      thinkingLevel: 'low',
      temperature: 0.4,
      topK: 20,
      maxOutputTokens: 512,
    }).generate(request([hello]));

    expect(server.generateBodies[0]?.generationConfig).toEqual({
      temperature: 0.4,
      topK: 20,
      maxOutputTokens: 512,
      thinkingConfig: { thinkingLevel: 'LOW' },
    });
    expect(response).toEqual({
      text: 'hi',
      calls: [],
      usage: { promptTokens: 300, outputTokens: 100, cachedTokens: 0 },
    });
  });

  it('sends a thinking budget to a 2.5 model', async () => {
    server.enqueue(textAnswer('hi'));

    await geminiFor({ model: 'gemini-2.5-flash', thinkingBudget: 0, topP: 0.8 }).generate(request([hello]));

    expect(server.generateBodies[0]?.generationConfig).toEqual({
      topP: 0.8,
      thinkingConfig: { thinkingBudget: 0 },
    });
  });

  it('sends the current image inline with its message', async () => {
    server.enqueue(textAnswer('a cat'));

    await geminiFor().generate(
      request([hello], {
        media: [{ eventId: 'e1', kind: 'image', mimeType: 'image/jpeg', data: '/9j/4AAQ' }],
      }),
    );

    expect(server.generateBodies[0]?.contents?.[0]?.parts).toEqual([
      { text: '[Aiko 2026-11-22 10:00 UTC] hello' },
      { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
    ]);
  });

  it('throws ModelNoAnswerError for a candidate stopped for safety', async () => {
    server.enqueue(safetyStoppedAnswer());

    await expect(geminiFor().generate(request([hello]))).rejects.toMatchObject({
      name: 'ModelNoAnswerError',
      reason: 'refused',
      finishReason: 'SAFETY',
    });
  });
});
