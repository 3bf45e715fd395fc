import { ApiError, GoogleGenAI, type Content } from '@google/genai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import { GeminiModel, ModelUnavailableError } from '../../src/model/index.js';
import {
  candidateAnswer,
  FakeGeminiServer,
  functionCallPart,
  textAnswer,
} from '../support/fake-gemini-server.js';

// The fake must be as strict as Gemini where the adapter could go wrong; these tests show
// each check fires, so the adapter tests that pass against it mean something.

let server: FakeGeminiServer;
let client: GoogleGenAI;
beforeEach(async () => {
  server = await FakeGeminiServer.start({ minCacheTokens: 1 });
  client = new GoogleGenAI({ apiKey: 'test-key', vertexai: false, httpOptions: { baseUrl: server.baseUrl } });
});
afterEach(() => server.close());

const model = 'gemini-3.6-flash';
const ask: Content = { role: 'user', parts: [{ text: 'weather?' }] };

async function statusOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

describe('FakeGeminiServer', () => {
  it('rejects cachedContent together with tools or a system instruction', async () => {
    const cache = await client.caches.create({
      model,
      config: { systemInstruction: 'persona', ttl: '600s' },
    });
    server.enqueue(textAnswer('ok'));

    const withTools = statusOf(
      client.models.generateContent({
        model,
        contents: [ask],
        config: { cachedContent: cache.name!, tools: [{ functionDeclarations: [{ name: 'reply' }] }] },
      }),
    );
    const withSystem = statusOf(
      client.models.generateContent({
        model,
        contents: [ask],
        config: { cachedContent: cache.name!, systemInstruction: 'x' },
      }),
    );
    const cachedOnly = statusOf(
      client.models.generateContent({ model, contents: [ask], config: { cachedContent: cache.name! } }),
    );

    expect(await withTools).toBe(400);
    expect(await withSystem).toBe(400);
    expect(await cachedOnly).toBeUndefined();
  });

  it('answers 403 for a cache that does not exist, and expires caches on its clock', async () => {
    let now = 0;
    await server.close();
    server = await FakeGeminiServer.start({ minCacheTokens: 1, now: () => now });
    client = new GoogleGenAI({
      apiKey: 'test-key',
      vertexai: false,
      httpOptions: { baseUrl: server.baseUrl },
    });
    const cache = await client.caches.create({
      model,
      config: { systemInstruction: 'persona', ttl: '600s' },
    });

    now = 600_000;

    expect(await statusOf(client.caches.get({ name: cache.name! }))).toBe(403);
    expect(
      await statusOf(
        client.models.generateContent({ model, contents: [ask], config: { cachedContent: cache.name! } }),
      ),
    ).toBe(403);
  });

  it.each([
    [
      'a response with no call before it',
      [ask, { role: 'user', parts: [{ functionResponse: { name: 'reply', response: {} } }] }],
    ],
    [
      'fewer responses than calls',
      [
        ask,
        {
          role: 'model',
          parts: [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b', args: {} } }],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'a', response: {} } }] },
      ],
    ],
    [
      'a response whose id matches no call',
      [
        ask,
        { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'a', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'c2', name: 'a', response: {} } }] },
      ],
    ],
    [
      'a response to a call that had no id, sent with a made-up id',
      [
        ask,
        { role: 'model', parts: [{ functionCall: { name: 'a', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'turn#1.0', name: 'a', response: {} } }] },
      ],
    ],
  ] satisfies [string, Content[]][])('rejects %s', async (_, contents) => {
    server.enqueue(textAnswer('never'));

    expect(await statusOf(client.models.generateContent({ model, contents }))).toBe(400);
    expect(server.rejections).toHaveLength(1);
  });

  it.each([
    [
      'a history that starts with the model’s function call turn',
      [
        { role: 'model', parts: [{ functionCall: { name: 'reply', args: { message: 'hi' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'reply', response: {} } }] },
        ask,
      ],
    ],
    [
      'a function call turn right after a model turn',
      [
        ask,
        { role: 'model', parts: [{ text: 'let me see' }] },
        { role: 'model', parts: [{ functionCall: { name: 'reply', args: { message: 'hi' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'reply', response: {} } }] },
      ],
    ],
  ] satisfies [string, Content[]][])('rejects %s with Gemini’s own message', async (_, contents) => {
    server.enqueue(textAnswer('never'));

    expect(await statusOf(client.models.generateContent({ model, contents }))).toBe(400);
    expect(server.rejections).toEqual([
      'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
    ]);
  });

  it('takes a function call turn after a user turn and after a function response turn', async () => {
    const call = (message: string): Content => ({
      role: 'model',
      parts: [{ functionCall: { name: 'reply', args: { message } } }],
    });
    const response: Content = {
      role: 'user',
      parts: [{ functionResponse: { name: 'reply', response: {} } }],
    };
    server.enqueue(textAnswer('ok'));

    await client.models.generateContent({ model, contents: [ask, call('a'), response, call('b'), response] });

    expect(server.rejections).toEqual([]);
  });

  it('counts tokens, one per Japanese character and four ASCII characters per token', async () => {
    const english = await client.models.countTokens({ model, contents: 'abcdefgh' });
    const japanese = await client.models.countTokens({ model, contents: 'こんにちは' });

    expect(english.totalTokens).toBe(2);
    expect(japanese.totalTokens).toBe(5);
  });

  it('rejects a function declared under a name Gemini does not take, in a request and in a cache', async () => {
    const declaring = (name: string) => ({ tools: [{ functionDeclarations: [{ name, description: 'x' }] }] });
    server.enqueue(textAnswer('ok'));

    const spaced = statusOf(
      client.models.generateContent({ model, contents: [ask], config: declaring('get weather') }),
    );
    const long = statusOf(
      client.models.generateContent({ model, contents: [ask], config: declaring(`l${'o'.repeat(64)}`) }),
    );
    const cached = statusOf(client.caches.create({ model, config: { ...declaring('2nd'), ttl: '600s' } }));
    const fine = statusOf(
      client.models.generateContent({ model, contents: [ask], config: declaring('ns:get_weather.v-2') }),
    );

    expect(await Promise.all([spaced, long, cached, fine])).toEqual([400, 400, 400, undefined]);
    expect(server.rejections).toEqual([
      expect.stringContaining('function_declarations[0].name: Invalid function name'),
      expect.stringContaining('function_declarations[0].name: Invalid function name'),
    ]);
  });

  it('rejects inline data of a type Gemini does not take, and a request over 20 MB', async () => {
    const withData = (mimeType: string, data: string): Content => ({
      role: 'user',
      parts: [{ text: 'look' }, { inlineData: { mimeType, data } }],
    });
    server.enqueue(textAnswer('a cat'));

    expect(
      await statusOf(client.models.generateContent({ model, contents: [withData('image/gif', 'R0lG')] })),
    ).toBe(400);
    expect(
      await statusOf(
        client.models.generateContent({
          model,
          contents: [withData('image/jpeg', 'A'.repeat(21 * 1024 * 1024))],
        }),
      ),
    ).toBe(400);
    expect(
      await statusOf(client.models.generateContent({ model, contents: [withData('image/jpeg', '/9j/')] })),
    ).toBeUndefined();
    expect(server.rejections).toEqual(['Unsupported MIME type: image/gif']);
  });

  it('rejects a part that carries no data (an empty part, a signature alone) and arguments that are no object', async () => {
    const answered: Content = { role: 'model', parts: [{ text: 'sunny' }] };
    const withPart = (part: object): Content[] => [ask, { role: 'model', parts: [part] }, ask];
    server.enqueue(textAnswer('rain'), textAnswer('snow'));

    expect(await statusOf(client.models.generateContent({ model, contents: withPart({}) }))).toBe(400);
    expect(
      await statusOf(
        client.models.generateContent({ model, contents: withPart({ thoughtSignature: 'c2ln' }) }),
      ),
    ).toBe(400);
    expect(
      await statusOf(
        client.models.generateContent({
          model,
          contents: [
            ask,
            { role: 'model', parts: [{ functionCall: { name: 'f', args: ['x'] as never } }] },
            ask,
          ],
        }),
      ),
    ).toBe(400);
    // An empty text is data; so is any text with a signature.
    expect(
      await statusOf(
        client.models.generateContent({ model, contents: withPart({ text: '', thoughtSignature: 'c2ln' }) }),
      ),
    ).toBeUndefined();
    expect(
      await statusOf(client.models.generateContent({ model, contents: [ask, answered, ask] })),
    ).toBeUndefined();
    expect(server.rejections).toEqual([
      "* GenerateContentRequest.contents[1].parts[0].data: required oneof field 'data' must have one initialized field",
      "* GenerateContentRequest.contents[1].parts[0].data: required oneof field 'data' must have one initialized field",
      `Invalid value at 'contents[1].parts[0].function_call.args' (type.googleapis.com/google.protobuf.Struct), ["x"]`,
    ]);
  });

  it('rejects a replayed call that lost or changed its thought signature', async () => {
    server.enqueue(
      candidateAnswer([
        functionCallPart('get_weather', { location: 'Tokyo' }, { thoughtSignature: 'U0lHTkFUVVJF' }),
      ]),
    );
    const first = await client.models.generateContent({ model, contents: [ask] });
    const callTurn = first.candidates![0]!.content!;
    const answer: Content = {
      role: 'user',
      parts: [{ functionResponse: { name: 'get_weather', response: { forecast: 'sun' } } }],
    };
    const stripped: Content = { role: 'model', parts: [{ functionCall: callTurn.parts![0]!.functionCall! }] };
    const changed: Content = {
      role: 'model',
      parts: [{ ...callTurn.parts![0], thoughtSignature: 'T1RIRVI=' }],
    };
    server.enqueue(textAnswer('ok'));

    expect(await statusOf(client.models.generateContent({ model, contents: [ask, stripped, answer] }))).toBe(
      400,
    );
    expect(await statusOf(client.models.generateContent({ model, contents: [ask, changed, answer] }))).toBe(
      400,
    );
    expect(
      await statusOf(client.models.generateContent({ model, contents: [ask, callTurn, answer] })),
    ).toBeUndefined();
    expect(server.rejections).toEqual([
      expect.stringContaining('missing a thought_signature'),
      'Corrupted thought signature.',
    ]);
  });

  it('catches an adapter that would replay a signed call without its provider parts', async () => {
    server.enqueue(
      candidateAnswer([functionCallPart('reply', { message: 'hi' }, { thoughtSignature: 'U0lH' })]),
    );
    const gemini = new GeminiModel({
      apiKey: 'test-key',
      baseUrl: server.baseUrl,
      cache: false,
      retry: { maxAttempts: 1 },
    });
    const user: HistoryEntry = { role: 'user', eventId: 'e1', text: 'hi', timestamp: 0 };
    const response = await gemini.generate({
      systemInstruction: 's',
      history: [user],
      tools: [],
      signal: new AbortController().signal,
    });
    const lostParts: HistoryEntry[] = [
      user,
      { role: 'model', turnId: 'e1', calls: [{ id: 'e1#1.0', name: 'reply', args: { message: 'hi' } }] },
      {
        role: 'tool',
        turnId: 'e1',
        results: [{ callId: 'e1#1.0', name: 'reply', response: { status: 'sent' } }],
      },
    ];

    const replay = gemini.generate({
      systemInstruction: 's',
      history: lostParts,
      tools: [],
      signal: new AbortController().signal,
    });

    expect(response.providerParts).toBeDefined();
    await expect(replay).rejects.toBeInstanceOf(ModelUnavailableError);
    await expect(replay).rejects.toMatchObject({ status: 400, attempts: 1 });
  });

  it('rejects a wrong API key', async () => {
    const stranger = new GoogleGenAI({
      apiKey: 'wrong',
      vertexai: false,
      httpOptions: { baseUrl: server.baseUrl },
    });

    expect(await statusOf(stranger.models.generateContent({ model, contents: [ask] }))).toBe(400);
  });
});
