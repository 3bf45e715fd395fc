import { describe, expect, it } from 'vitest';
import type { JsonObject, Source } from '../../src/domain/index.js';
import {
  ToolRegistry,
  createCurrentTimeTool,
  createWeatherTool,
  defineTool,
  replyTool,
  skipTool,
  type Tool,
  type ToolContext,
} from '../../src/tools/index.js';

const ownSource: Source = { kind: 'group', id: 'C-own-group' };
const otherSource = { kind: 'user', id: 'U-someone-else' };

const callContext = () => ({
  source: ownSource,
  sender: { userId: 'U-member' },
  turnId: 'turn-1',
  signal: new AbortController().signal,
  clock: { now: () => 0 },
});

/** Every way a model might try to point a call at another conversation. */
const smuggledArgs: JsonObject = {
  source: otherSource,
  sourceId: otherSource.id,
  to: otherSource.id,
  userId: otherSource.id,
  groupId: 'C-other-group',
  replyToken: 'stolen-reply-token',
};

describe('a tool reaches its source only through the context', () => {
  // No network: arguments are refused before any tool runs.
  const builtIns: [string, Tool, JsonObject][] = [
    ['reply', replyTool, { message: 'hi' }],
    ['skip', skipTool, { reason: 'aside' }],
    ['get_weather', createWeatherTool({ baseUrl: 'http://127.0.0.1:9' }), { location: 'Tokyo' }],
    ['get_current_time', createCurrentTimeTool({ defaultTimeZone: 'Asia/Tokyo' }), {}],
  ];

  it.each(builtIns)('%s refuses arguments that name another source', async (name, tool, validArgs) => {
    const registry = new ToolRegistry().register(tool);

    for (const [key, value] of Object.entries(smuggledArgs)) {
      const outcome = await registry.execute(
        { id: 'c1', name, args: { ...validArgs, [key]: value } },
        callContext(),
      );
      expect(outcome.isError, key).toBe(true);
      expect(outcome.response.error, key).toContain('must NOT have additional properties');
    }
  });

  it('a tool that accepts any arguments still gets only its own source', async () => {
    const seen: ToolContext[] = [];
    const permissive = defineTool({
      name: 'notify',
      description: 'Acts on the conversation it was called from.',
      category: 'test',
      optional: true,
      parameters: { type: 'object' }, // takes anything, source fields included
      response: { type: 'object', properties: { sourceId: { type: 'string' } }, required: ['sourceId'] },
    }).implement((_args, context) => {
      seen.push(context);
      return Promise.resolve({ forLLM: { sourceId: context.source.id } });
    });
    const registry = new ToolRegistry().register(permissive);

    const outcome = await registry.execute({ id: 'c1', name: 'notify', args: smuggledArgs }, callContext());

    expect(outcome.response).toEqual({ sourceId: ownSource.id });
    expect(seen[0]?.source).toEqual(ownSource);
    expect(seen[0]?.sender).toEqual({ userId: 'U-member' });
    // The context has no reply token, and the arguments did not leak into it.
    expect(
      JSON.stringify({ ...seen[0], signal: undefined, clock: undefined, logger: undefined }),
    ).not.toMatch(/stolen-reply-token|U-someone-else|C-other-group/);
  });
});
