import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { JsonObject } from '../../src/domain/index.js';
import { createReminderTools } from '../../src/reminders/index.js';
import {
  createCurrentTimeTool,
  createWeatherTool,
  defineTool,
  replyTool,
  ToolRegistry,
  type Tool,
  type ToolContext,
  type ToolResult,
} from '../../src/tools/index.js';

// Most of this file is checked by tsc (`npm run typecheck` covers test/): `expectTypeOf` and
// `@ts-expect-error` fail the type check, not the run, when a tool's types drift from its schemas.

const echo = defineTool({
  name: 'echo',
  description: 'Repeats text.',
  category: 'test',
  optional: true,
  parameters: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1 },
      times: { type: 'integer', minimum: 1, default: 1 },
      tone: { type: 'string', enum: ['plain', 'loud'] },
    },
    required: ['text'],
    additionalProperties: false,
  },
  response: {
    type: 'object',
    properties: { echoed: { type: 'string' }, count: { type: 'integer' } },
    required: ['echoed'],
    additionalProperties: false,
  },
});

describe('a tool typed from its schemas', () => {
  it('gives execute its arguments as the parameters schema describes them', () => {
    const tool = echo.implement((args) => {
      expectTypeOf(args.text).toEqualTypeOf<string>();
      // Optional, and still optional with a `default`: nothing fills defaults in.
      expectTypeOf(args).toHaveProperty('times').toEqualTypeOf<number | undefined>();
      expectTypeOf(args.tone).toEqualTypeOf<'plain' | 'loud' | undefined>();
      const text = args.tone === 'loud' ? args.text.toUpperCase() : args.text;
      return Promise.resolve({ forLLM: { echoed: text.repeat(args.times ?? 1) } });
    });

    expectTypeOf(tool.execute).parameter(0).toEqualTypeOf<{
      text: string;
      times?: number;
      tone?: 'plain' | 'loud';
    }>();
    expectTypeOf(tool.execute).returns.resolves.toEqualTypeOf<
      ToolResult<{ echoed: string; count?: number }>
    >();
    expectTypeOf(tool).toExtend<Tool>();
  });

  it('refuses, at compile time, code whose arguments or results do not match', () => {
    // @ts-expect-error -- `echoed` must be a string
    echo.implement(() => Promise.resolve({ forLLM: { echoed: 42 } }));
    // @ts-expect-error -- `echoed` is required
    echo.implement(() => Promise.resolve({ forLLM: { count: 1 } }));
    // An extra property is not a type error (TypeScript checks excess properties only on a literal
    // it sees assigned directly, not one returned through a promise); ajv refuses it at run time.
    // @ts-expect-error -- `tone` is one of two words
    echo.implement((args) => Promise.resolve({ forLLM: { echoed: args.tone === 'quiet' ? '' : 'a' } }));
    // A failure is not held to the response schema: it carries an error for the model.
    echo.implement(() => Promise.resolve({ forLLM: { error: 'no echo today' }, isError: true }));
    // @ts-expect-error -- but it must be an error
    echo.implement(() => Promise.resolve({ forLLM: { echoed: 'a' }, isError: true }));
  });

  it('types the built-in tools the same way', () => {
    expectTypeOf(replyTool.execute).parameter(0).toEqualTypeOf<{ message: string }>();
    expectTypeOf(replyTool.execute).returns.resolves.toEqualTypeOf<ToolResult<{ status: 'sent' }>>();
    const weather = createWeatherTool({ baseUrl: 'http://127.0.0.1:9' });
    expectTypeOf(weather.execute).parameter(0).toEqualTypeOf<{
      location: string;
      date?: 'today' | 'tomorrow' | 'day_after_tomorrow';
      detail?: 'basic' | 'detailed' | 'full';
    }>();
    const currentTime = createCurrentTimeTool({ defaultTimeZone: 'Asia/Tokyo' });
    expectTypeOf(currentTime.execute).parameter(0).toEqualTypeOf<{ time_zone?: string }>();
    const [setReminder, , cancelReminder] = createReminderTools({
      scheduler: {
        schedule: () => Promise.resolve(),
        cancel: () => Promise.resolve(true),
        list: () => Promise.resolve([]),
      },
    });
    expectTypeOf(setReminder.execute).parameter(0).toEqualTypeOf<{
      text: string;
      when?: string;
      delay_minutes?: number;
      repeat?: 'daily' | 'weekdays' | 'weekly';
      time_zone?: string;
    }>();
    expectTypeOf(cancelReminder.execute).returns.resolves.toEqualTypeOf<ToolResult<{ cancelled: boolean }>>();
  });

  it('treats a schema known only as some object schema as any JSON object', () => {
    const loose = defineTool({
      name: 'loose',
      description: 'Anything goes.',
      category: 'test',
      optional: true,
      parameters: { type: 'object' },
      response: { type: 'object' },
    }).implement((args) => Promise.resolve({ forLLM: args }));
    expectTypeOf(loose.execute).parameter(0).toEqualTypeOf<JsonObject>();
  });

  it('still checks every call at run time: the types describe, ajv decides', async () => {
    const seen: unknown[] = [];
    const tool = echo.implement((args) => {
      seen.push(args);
      return Promise.resolve({ forLLM: { echoed: args.text } });
    });
    const registry = new ToolRegistry().register(tool);
    const context = {
      source: { kind: 'user' as const, id: 'U1' },
      turnId: 't1',
      signal: new AbortController().signal,
      clock: { now: () => 0 },
    } satisfies Omit<ToolContext, 'callId' | 'idempotencyKey' | 'logger'>;

    const refused = await registry.execute(
      { id: 'c1', name: 'echo', args: { text: 'hi', times: 0 } },
      context,
    );
    const accepted = await registry.execute(
      { id: 'c2', name: 'echo', args: { text: 'hi', times: 2 } },
      context,
    );

    expect(refused).toMatchObject({
      isError: true,
      response: { error: expect.stringContaining('must be >= 1') as string },
    });
    expect(accepted).toMatchObject({ isError: false, response: { echoed: 'hi' } });
    expect(seen).toEqual([{ text: 'hi', times: 2 }]);
  });
});

describe('tool code needs no casts', () => {
  // `as const` fixes a schema's literal type; any other `as` in a tool would override a type.
  const CAST = /\bas\s+(?!const\b)[A-Za-z_{[(]/;
  const toolFiles = async () => {
    const inTools = (await readdir('src/tools', { recursive: true }))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => path.join('src/tools', file));
    return [...inTools, 'src/reminders/reminder-tools.ts'];
  };

  it('finds no type assertion in src/tools or the reminder tools (comments aside)', async () => {
    const casts: string[] = [];
    for (const file of await toolFiles()) {
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        const code = line
          .replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`(?:\\.|[^`\\])*`/g, "''")
          .replace(/\/\*.*?\*\/|\/\/.*$/g, '')
          .replace(/^\s*\*.*$/, '');
        if (CAST.test(code)) casts.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(casts).toEqual([]);
  });

  it('the check sees a cast', () => {
    expect(CAST.test('const text = args.message as string;')).toBe(true);
    expect(CAST.test('} as const satisfies ObjectSchema;')).toBe(false);
    expect(CAST.test('const body = (response.body as ReadableStream<Uint8Array>);')).toBe(true);
  });
});
