import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import { GeminiModel, type ModelRequest, type ToolDeclaration } from '../../src/model/index.js';
import { withStepGuidance } from '../../src/model/gemini/gemini-step-guidance.js';
import {
  candidateAnswer,
  FakeGeminiServer,
  functionCallPart,
  replyAnswer,
} from '../support/fake-gemini-server.js';

let server: FakeGeminiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setUp(cache: boolean) {
  const fake = await FakeGeminiServer.start();
  server = fake;
  const model = new GeminiModel({
    apiKey: 'test-key',
    baseUrl: fake.baseUrl,
    random: () => 0,
    cache: cache ? { ttlSeconds: 3600 } : false,
  });
  return { fake, model };
}

const declaration = (name: string): ToolDeclaration => ({
  name,
  description: `The ${name} tool.`,
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
});
const [findTools, getWeather, reply, setReminder] = [
  'find_tools',
  'get_weather',
  'reply',
  'set_reminder',
].map(declaration) as [ToolDeclaration, ToolDeclaration, ToolDeclaration, ToolDeclaration];
const allTools = [findTools, getWeather, reply, setReminder];

// About 5,400 tokens: above 3.6 Flash's 4,096-token cache minimum.
const prefix = `You are Kaiwa. ${'Be kind and brief. '.repeat(1130)}`;
const hello: HistoryEntry = { role: 'user', eventId: 'e1', text: 'weather in Osaka?', timestamp: 0 };

function step(
  tools: ToolDeclaration[],
  stepGuidance: string,
  history: HistoryEntry[] = [hello],
): ModelRequest {
  return {
    systemInstruction: prefix,
    history,
    tools,
    allTools,
    stepGuidance,
    signal: new AbortController().signal,
  };
}

const names = (body: { tools?: { functionDeclarations?: Record<string, unknown>[] }[] } | undefined) =>
  body?.tools?.flatMap((tool) => tool.functionDeclarations ?? []).map((declaration) => declaration.name);

describe('GeminiModel with per-step tool selection', () => {
  it('caches the prefix with every declaration and sends each step’s choice as text in the contents', async () => {
    const { fake, model } = await setUp(true);
    fake.enqueue(replyAnswer('warm-up'), replyAnswer('one'), replyAnswer('two'));
    await model.generate(step([findTools, reply], 'warm-up')); // uncached; the cache is made beside it
    await model.cacheIdle();

    await model.generate(step([findTools, getWeather, reply], '# Tools for this step\nget_weather'));
    await model.generate(step([findTools, reply, setReminder], '# Tools for this step\nset_reminder'));

    expect(fake.rejections).toEqual([]);
    const creates = fake.requestsTo('POST', '/v1beta/cachedContents');
    expect(creates).toHaveLength(1); // the same prefix at both steps: the cache keeps hitting
    const cache = creates[0]?.body as { systemInstruction?: unknown; tools?: [] };
    expect(cache.systemInstruction).toEqual({ role: 'user', parts: [{ text: prefix }] });
    expect(names(cache)).toEqual(['find_tools', 'get_weather', 'reply', 'set_reminder']);
    const [, first, second] = fake.generateBodies;
    for (const body of [first, second]) {
      expect(Object.keys(body ?? {}).sort()).toEqual(['cachedContent', 'contents', 'generationConfig']);
      expect(body?.cachedContent).toBe(fake.cacheNames[0]);
    }
    expect(first?.contents?.at(-1)?.parts).toEqual([
      { text: '[someone 1970-01-01 00:00 UTC] weather in Osaka?' },
      { text: '# Tools for this step\nget_weather' },
    ]);
    expect(second?.contents?.at(-1)?.parts?.at(-1)).toEqual({ text: '# Tools for this step\nset_reminder' });
  });

  it('puts the step’s text after function responses, which Gemini accepts', async () => {
    const { fake, model } = await setUp(true);
    fake.enqueue(replyAnswer('warm-up'), replyAnswer('done'));
    await model.generate(step([findTools, reply], 'warm-up'));
    await model.cacheIdle();
    const history: HistoryEntry[] = [
      hello,
      {
        role: 'model',
        turnId: 'e1',
        calls: [{ id: 'c1', name: 'find_tools', args: { name: 'get_weather' } }],
      },
      {
        role: 'tool',
        turnId: 'e1',
        results: [{ callId: 'c1', name: 'find_tools', response: { enabled: 'get_weather' } }],
      },
    ];

    await model.generate(step([findTools, getWeather, reply], 'guidance', history));

    expect(fake.rejections).toEqual([]);
    expect(fake.generateBodies[1]?.cachedContent).toBe(fake.cacheNames[0]);
    expect(fake.generateBodies[1]?.contents?.at(-1)).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'find_tools', response: { enabled: 'get_weather' } } },
        { text: 'guidance' },
      ],
    });
  });

  it('without a cache, narrows the declarations and puts the step’s text after the prefix', async () => {
    const { fake, model } = await setUp(false);
    fake.enqueue(candidateAnswer([functionCallPart('get_weather', { text: 'Osaka' })]));

    const response = await model.generate(
      step([findTools, getWeather, reply], '# Tools for this step\nget_weather'),
    );

    expect(fake.rejections).toEqual([]);
    expect(response.calls).toEqual([{ name: 'get_weather', args: { text: 'Osaka' } }]);
    const [body] = fake.generateBodies;
    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toEqual([]);
    expect(body?.systemInstruction).toEqual({
      role: 'user',
      parts: [{ text: `${prefix}\n\n# Tools for this step\nget_weather` }],
    });
    expect(names(body)).toEqual(['find_tools', 'get_weather', 'reply']);
    expect(body?.contents).toEqual([
      { role: 'user', parts: [{ text: '[someone 1970-01-01 00:00 UTC] weather in Osaka?' }] },
    ]);
  });

  it('goes uncached and narrowed when the prefix is below the cache minimum', async () => {
    const { fake, model } = await setUp(true);
    fake.enqueue(replyAnswer('one'));

    await model.generate({ ...step([findTools, reply], 'guidance'), systemInstruction: 'A small bot.' });

    expect(fake.requestsTo('POST', '/v1beta/cachedContents')).toEqual([]);
    expect(names(fake.generateBodies[0])).toEqual(['find_tools', 'reply']);
    expect(fake.generateBodies[0]?.systemInstruction).toEqual({
      role: 'user',
      parts: [{ text: 'A small bot.\n\nguidance' }],
    });
  });
});

describe('withStepGuidance', () => {
  it('adds a user turn when the contents end with the model, and leaves the input alone', () => {
    const contents = [
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: 'thinking' }] },
    ];
    const copy = structuredClone(contents);

    expect(withStepGuidance(contents, 'guidance')).toEqual([
      ...copy,
      { role: 'user', parts: [{ text: 'guidance' }] },
    ]);
    expect(withStepGuidance(contents, undefined)).toEqual(copy);
    expect(contents).toEqual(copy);
  });
});
