import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/domain/index.js';
import { createLogger } from '../../src/logging/index.js';
import {
  defineTool,
  ToolDefinitionError,
  ToolRegistry,
  replyTool,
  skipTool,
  type Tool,
  type ToolContext,
  type ToolSpec,
} from '../../src/tools/index.js';

const lookupSpec = {
  name: 'lookup',
  description: 'Looks a place up.',
  category: 'test',
  optional: true,
  parameters: {
    type: 'object',
    properties: {
      location: { type: 'string', pattern: '^[^@:/]+$' },
      days: { type: 'integer', minimum: 1, maximum: 3 },
    },
    required: ['location'],
    additionalProperties: false,
  },
  response: {
    type: 'object',
    properties: { summary: { type: 'string' } },
    required: ['summary'],
    additionalProperties: false,
  },
} as const satisfies ToolSpec;

const lookupTool = defineTool(lookupSpec);
type LookupExecute = Parameters<typeof lookupTool.implement>[0];

const weatherLike = lookupTool.implement((args) =>
  Promise.resolve({ forLLM: { summary: `sunny in ${args.location}` } }),
);

/** The lookup tool with other code or settings: tools are built, never copied with `...`. */
function lookupWith(
  execute: LookupExecute,
  overrides: Partial<Pick<ToolSpec, 'name' | 'timeoutMs' | 'maxResultBytes'>> = {},
) {
  return defineTool({ ...lookupSpec, ...overrides }).implement(execute);
}

const callContext = () => ({
  source: { kind: 'user' as const, id: 'U1' },
  turnId: 'turn-1',
  signal: new AbortController().signal,
  clock: { now: () => 0 },
});

function registryWith(...tools: Tool[]) {
  const lines: string[] = [];
  const registry = new ToolRegistry({
    logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
    defaultTimeoutMs: 50,
  });
  for (const tool of tools) registry.register(tool);
  return { registry, lines };
}

describe('tool registry: argument validation', () => {
  it.each<[string, JsonObject, string | null]>([
    ['valid arguments', { location: 'Tokyo' }, null],
    ['valid with an optional field', { location: 'Osaka', days: 2 }, null],
    ['missing required field', {}, "must have required property 'location'"],
    ['wrong type', { location: 42 }, 'must be string'],
    ['pattern broken', { location: 'evil.com/path' }, 'must match pattern'],
    ['out of range', { location: 'Kyoto', days: 9 }, 'must be <= 3'],
    ['unknown property', { location: 'Nara', extra: true }, 'must NOT have additional properties'],
  ])('%s', async (_case, args, expectedError) => {
    const { registry } = registryWith(weatherLike);

    const outcome = await registry.execute({ id: 'c1', name: 'lookup', args }, callContext());

    if (expectedError === null) {
      expect(outcome).toMatchObject({ isError: false, response: { summary: expect.any(String) as string } });
    } else {
      expect(outcome.isError).toBe(true);
      expect(outcome.response.error).toContain('invalid arguments');
      expect(outcome.response.error).toContain(expectedError);
    }
  });
});

// The response type refuses these already; the run-time check is for what the types cannot see.
// @ts-expect-error -- a required field missing
const missingField: LookupExecute = () => Promise.resolve({ forLLM: { other: 'x' } });
// @ts-expect-error -- a field of the wrong type
const wrongType: LookupExecute = () => Promise.resolve({ forLLM: { summary: 1 } });

/** A tool body returning what its types forbid. */
const odd =
  (result: unknown): LookupExecute =>
  () =>
    Promise.resolve(result as never);

function circular(): JsonObject {
  const value: Record<string, unknown> = { error: 'loop' };
  value.self = value;
  return value as JsonObject;
}

describe('tool registry: response validation and failures', () => {
  it.each<[string, LookupExecute, string]>([
    ['a response missing a required field', missingField, 'returned an invalid response'],
    ['a response of the wrong type', wrongType, 'returned an invalid response'],
    [
      'a thrown error',
      () => Promise.reject(new Error('database password is hunter2')),
      'tool "lookup" failed',
    ],
    ['a timeout', () => new Promise(() => {}), 'timed out after 50 ms'],
    // Kept in the turn's checkpoint and in history, 500 KB would not fit a DynamoDB head (350 KB):
    // the chat would retry that write forever. The model hears how large it was.
    [
      'a result over 32 KiB',
      () => Promise.resolve({ forLLM: { summary: 'x'.repeat(500_000) }, forUser: 'also this' }),
      'tool "lookup" returned 489 KB, more than the 32 KB a tool result may hold',
    ],
    // What types forbid but JavaScript tools (and `as never`) return: before, a text for the user
    // that is no string stopped the conversation actor, and an error result that is no JSON
    // made the registry throw, though it promises never to.
    [
      'a text for the user that is no string',
      odd({ forLLM: { summary: 'x' }, forUser: 42 }),
      'invalid response',
    ],
    ['an error result with a circular value', odd({ forLLM: circular(), isError: true }), 'invalid response'],
    ['an error result with a BigInt', odd({ forLLM: { error: 1n }, isError: true }), 'invalid response'],
    ['an error result without a value', odd({ isError: true }), 'invalid response'],
    [
      'an error text for the user that is no string',
      odd({ forLLM: {}, forUser: {}, isError: true }),
      'invalid response',
    ],
    ['no result at all', odd(undefined), 'invalid response'],
    ['a flag that is no boolean', odd({ forLLM: { summary: 'x' }, silent: 'yes' }), 'invalid response'],
  ])('turns %s into an error for the model, details only in the log', async (_case, execute, expected) => {
    const { registry, lines } = registryWith(lookupWith(execute));

    const outcome = await registry.execute(
      { id: 'c1', name: 'lookup', args: { location: 'Tokyo' } },
      callContext(),
    );

    expect(outcome).toEqual({
      callId: 'c1',
      name: 'lookup',
      isError: true,
      response: { error: expect.stringContaining(expected) as string },
    });
    expect(JSON.stringify(outcome)).not.toContain('hunter2');
    expect(lines.some((line) => line.includes('tool call failed'))).toBe(true);
  });

  it.each<[string, { value?: number; [extra: string]: unknown }]>([
    ['a Date', { value: 1, when: new Date(0) }],
    ['undefined', { value: undefined }],
    ['NaN', { value: Number.NaN }],
  ])('refuses a result holding %s, which history could not keep as it is', async (_case, forLLM) => {
    // A schema that allows more properties types them `unknown`: only the run-time checks see these.
    const loose = defineTool({
      ...lookupSpec,
      name: 'loose',
      response: { type: 'object', properties: { value: { type: 'number' } } },
    }).implement(() => Promise.resolve({ forLLM }));
    const { registry } = registryWith(loose);

    const outcome = await registry.execute(
      { id: 'c1', name: 'loose', args: { location: 'Tokyo' } },
      callContext(),
    );

    expect(outcome).toMatchObject({
      isError: true,
      response: { error: 'tool "loose" returned an invalid response' },
    });
  });

  it("refuses at registration a tool whose own result limit is more than one step's results may hold", () => {
    const tooRoomy = lookupWith(() => Promise.resolve({ forLLM: { summary: 'x' } }), {
      maxResultBytes: 512 * 1024,
    });

    expect(() => new ToolRegistry().register(tooRoomy)).toThrow(
      'tool "lookup": maxResultBytes 524288 is more than one step\'s results may hold (262144)',
    );
  });

  it("honours a tool's own result limit over the default, counting the text for the user too", async () => {
    const roomy = lookupWith(() => Promise.resolve({ forLLM: { summary: 'x'.repeat(50_000) } }), {
      maxResultBytes: 64 * 1024,
    });
    const chatty = lookupWith(
      () => Promise.resolve({ forLLM: { summary: 'short' }, forUser: 'y'.repeat(40_000) }),
      {
        name: 'chatty',
      },
    );
    const { registry } = registryWith(roomy, chatty);

    const allowed = await registry.execute(
      { id: 'c1', name: 'lookup', args: { location: 'Tokyo' } },
      callContext(),
    );
    const refused = await registry.execute(
      { id: 'c2', name: 'chatty', args: { location: 'Tokyo' } },
      callContext(),
    );

    expect(allowed.isError).toBe(false);
    expect(refused).toMatchObject({
      isError: true,
      response: { error: expect.stringContaining('returned 40 KB') as string },
    });
  });

  it('reports an unknown tool with the tools that exist', async () => {
    const { registry } = registryWith(replyTool, weatherLike);

    const outcome = await registry.execute({ id: 'c1', name: 'get_stock_price', args: {} }, callContext());

    expect(outcome.response).toEqual({
      error: 'unknown tool "get_stock_price"; available tools: lookup, reply',
    });
  });

  it("honours a tool's own timeout over the default", async () => {
    const slowButAllowed = lookupWith(
      () => new Promise((resolve) => setTimeout(() => resolve({ forLLM: { summary: 'late but fine' } }), 80)),
      { timeoutMs: 500 },
    );
    const { registry } = registryWith(slowButAllowed);

    const outcome = await registry.execute(
      { id: 'c1', name: 'lookup', args: { location: 'Tokyo' } },
      callContext(),
    );

    expect(outcome.response).toEqual({ summary: 'late but fine' });
  });

  it("aborts the tool's signal when it times out", async () => {
    let seen: AbortSignal | undefined;
    const { registry } = registryWith(
      lookupWith((_args, context) => {
        seen = context.signal;
        return new Promise(() => {});
      }),
    );

    await registry.execute({ id: 'c1', name: 'lookup', args: { location: 'Tokyo' } }, callContext());

    expect(seen?.aborted).toBe(true);
  });

  it('ends the call as soon as the turn is cancelled, even when the tool ignores its signal', async () => {
    const { registry } = registryWith(lookupWith(() => new Promise(() => {}), { timeoutMs: 600_000 }));
    const turn = new AbortController();

    const outcome = registry.execute(
      { id: 'c1', name: 'lookup', args: { location: 'Tokyo' } },
      { ...callContext(), signal: turn.signal },
    );
    turn.abort(new Error('the actor stopped'));

    expect((await outcome).isError).toBe(true);
  }, 2_000);

  it('gives the tool its source, turn and an idempotency key through the context', async () => {
    let context: ToolContext | undefined;
    const { registry } = registryWith(
      lookupWith((_args, toolContext) => {
        context = toolContext;
        return Promise.resolve({ forLLM: { summary: 'ok' } });
      }),
    );

    await registry.execute({ id: 'call-7', name: 'lookup', args: { location: 'Tokyo' } }, callContext());

    expect(context).toMatchObject({
      source: { id: 'U1' },
      turnId: 'turn-1',
      callId: 'call-7',
      idempotencyKey: 'turn-1:call-7',
    });
  });
});

describe('tool registry: registration', () => {
  it('rejects a duplicate name', () => {
    const { registry } = registryWith(replyTool);
    expect(() => registry.register(replyTool)).toThrow(ToolDefinitionError);
  });

  it.each<[string, () => Tool, string]>([
    [
      'an invalid parameter schema',
      () =>
        defineTool({
          ...lookupSpec,
          // @ts-expect-error -- a misspelt type is refused by the schema type already
          parameters: { type: 'object', properties: { a: { type: 'strng' } } },
        }).implement(() => Promise.resolve({ forLLM: { summary: '' } })),
      'invalid parameters schema',
    ],
    [
      'an unknown keyword (strict mode)',
      () =>
        defineTool({
          ...lookupSpec,
          // The type lets an unknown keyword through; ajv's strict mode does not.
          response: { type: 'object', exampel: 1 },
        }).implement(() => Promise.resolve({ forLLM: {} })),
      'invalid response schema',
    ],
    [
      'an example its schema refuses',
      () =>
        defineTool({
          ...lookupSpec,
          examples: [{ description: 'bad', args: { location: 'a/b' } }],
        }).implement(() => Promise.resolve({ forLLM: { summary: '' } })),
      'example "bad"',
    ],
    // Gemini answers 400 to every request that declares such a tool: the bot would never answer.
    [
      'a name with a space (Gemini refuses it)',
      () => lookupWith(weatherLike.execute, { name: 'get weather' }),
      'a letter or an underscore, then letters, digits',
    ],
    [
      'a name that starts with a digit',
      () => lookupWith(weatherLike.execute, { name: '2nd_lookup' }),
      'a letter or an underscore, then letters, digits',
    ],
    [
      'a name of 65 characters',
      () => lookupWith(weatherLike.execute, { name: `l${'o'.repeat(64)}` }),
      'at most 64 characters',
    ],
  ])('rejects %s', (_case, build, message) => {
    const { registry } = registryWith();
    expect(() => registry.register(build())).toThrow(message);
  });

  it('takes the names Gemini takes: letters, digits, underscores, dots, colons and dashes, 64 at most', () => {
    const { registry } = registryWith();
    for (const name of ['_private', 'weather.lookup', 'ns:tool-2', `l${'o'.repeat(63)}`])
      registry.register(lookupWith(weatherLike.execute, { name }));
    expect(registry.list()).toHaveLength(4);
  });

  it('lists and declares tools sorted by name, and caches declarations until a tool is added', () => {
    const { registry } = registryWith(weatherLike, skipTool, replyTool);

    const first = registry.declarations();
    expect(first.map((declaration) => declaration.name)).toEqual(['lookup', 'reply', 'skip']);
    expect(registry.declarations()).toBe(first);
    registry.register(lookupWith(weatherLike.execute, { name: 'another' }));
    expect(registry.declarations().map((declaration) => declaration.name)).toEqual([
      'another',
      'lookup',
      'reply',
      'skip',
    ]);
  });
});

describe('built-in tools', () => {
  it.each<[string, JsonObject, boolean]>([
    ['a normal message', { message: 'hi' }, false],
    ['an empty message', { message: '' }, true],
    // Blank, a LINE bubble with nothing in it: the model hears so and writes one.
    ['a message of spaces only', { message: '   ' }, true],
    ['a message of line breaks and tabs only', { message: '\n\t\n' }, true],
    ['a message with spaces around it', { message: ' hi ' }, false],
    ['5000 characters', { message: 'a'.repeat(5000) }, false],
    ['5001 characters', { message: 'a'.repeat(5001) }, true],
    ['a reply token smuggled into the arguments', { message: 'hi', replyToken: 'stolen' }, true],
  ])('reply with %s', async (_case, args, isError) => {
    const { registry } = registryWith(replyTool);
    const outcome = await registry.execute({ id: 'c', name: 'reply', args }, callContext());
    expect(outcome.isError).toBe(isError);
    if (!isError) expect(outcome).toMatchObject({ response: { status: 'sent' }, forUser: args.message });
  });

  it('skip is silent and needs a reason', async () => {
    const { registry } = registryWith(skipTool);
    expect(
      await registry.execute({ id: 'c', name: 'skip', args: { reason: 'aside' } }, callContext()),
    ).toMatchObject({
      silent: true,
      isError: false,
    });
    expect((await registry.execute({ id: 'c', name: 'skip', args: {} }, callContext())).isError).toBe(true);
  });
});

describe('tool registry: compiling on first call (a cold start pays only for the tools it calls)', () => {
  function lazyRegistry() {
    const lines: string[] = [];
    const registry = new ToolRegistry({
      logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
      defaultTimeoutMs: 50,
      compile: 'on-first-call',
    });
    return { registry, lines };
  }

  it('prepares a tool on its first call, once, and validates as ever', async () => {
    const { registry } = lazyRegistry();
    let prepared = 0;
    registry.register({
      ...weatherLike,
      prepare: (compiler) => {
        prepared++;
        return weatherLike.prepare(compiler);
      },
    });
    expect(prepared).toBe(0);

    const first = await registry.execute(
      { id: 'c1', name: 'lookup', args: { location: 'Tokyo' } },
      callContext(),
    );
    const refused = await registry.execute({ id: 'c2', name: 'lookup', args: {} }, callContext());

    expect(prepared).toBe(1);
    expect(first).toMatchObject({ isError: false, response: { summary: 'sunny in Tokyo' } });
    expect(refused).toMatchObject({
      isError: true,
      response: { error: expect.stringContaining('location') as string },
    });
  });

  it('turns a schema that does not compile into an error outcome on the first call, logged', async () => {
    const { registry, lines } = lazyRegistry();
    registry.register(
      defineTool({
        ...lookupSpec,
        // The type lets an unknown keyword through; ajv's strict mode does not.
        response: { type: 'object', exampel: 1 },
      }).implement(() => Promise.resolve({ forLLM: {} })),
    );

    const outcome = await registry.execute(
      { id: 'c1', name: 'lookup', args: { location: 'Nara' } },
      callContext(),
    );

    expect(outcome).toMatchObject({ isError: true, response: { error: 'tool "lookup" failed' } });
    expect(lines.join('\n')).toContain('invalid response schema');
  });

  it('compiles a schema that failed only once: every later call fails the same, logged', async () => {
    const { registry, lines } = lazyRegistry();
    const broken = defineTool({ ...lookupSpec, response: { type: 'object', exampel: 1 } }).implement(() =>
      Promise.resolve({ forLLM: {} }),
    );
    let compiled = 0;
    registry.register(
      Object.defineProperty({ ...broken }, 'response', {
        get: () => (compiled++, broken.response),
      }),
    );

    const outcomes = [];
    for (const id of ['c1', 'c2', 'c3'])
      outcomes.push(
        await registry.execute({ id, name: 'lookup', args: { location: 'Nara' } }, callContext()),
      );

    expect(compiled).toBe(1);
    expect(outcomes.map((outcome) => outcome.isError)).toEqual([true, true, true]);
    expect(lines.filter((line) => line.includes('invalid response schema'))).toHaveLength(3);
  });
});
