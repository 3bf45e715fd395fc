import { describe, expect, it, vi } from 'vitest';
import { ToolSection, renderToolSection } from '../../src/prompt/tool-section.js';
import {
  ToolRegistry,
  createCurrentTimeTool,
  createWeatherTool,
  replyTool,
  defineTool,
  skipTool,
  type ToolSpec,
} from '../../src/tools/index.js';

function builtInRegistry() {
  return new ToolRegistry()
    .register(createWeatherTool({ baseUrl: 'http://127.0.0.1:9' }))
    .register(skipTool)
    .register(createCurrentTimeTool({ defaultTimeZone: 'Asia/Tokyo' }))
    .register(replyTool);
}

const tool = (overrides: Partial<ToolSpec> & Pick<ToolSpec, 'name'>) =>
  defineTool({
    description: `The ${overrides.name} tool.`,
    category: 'misc',
    optional: true,
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    response: { type: 'object' },
    ...overrides,
  }).implement(() => Promise.resolve({ forLLM: {} }));

describe('the generated tool section', () => {
  it('pins the text for reply, skip, get_weather and get_current_time', async () => {
    await expect(new ToolSection(builtInRegistry()).text()).toMatchFileSnapshot(
      './__snapshots__/tool-section.txt',
    );
  });

  it('puts required groups before optional ones, categories and tools in name order', () => {
    const text = renderToolSection([
      tool({ name: 'zeta', category: 'alpha', optional: true }),
      tool({ name: 'beta', category: 'zoo_keeping', optional: false }),
      tool({ name: 'alpha', category: 'alpha', optional: true }),
      tool({ name: 'gamma', category: 'alpha', optional: false }),
    ]);

    const headings = text.split('\n').filter((line) => line.startsWith('#'));
    expect(headings).toEqual([
      '# Tools',
      '## Alpha tools (required)',
      '### gamma',
      '## Zoo keeping tools (required)',
      '### beta',
      '## Alpha tools (optional)',
      '### alpha',
      '### zeta',
      '# Choosing tools',
    ]);
  });

  it('describes parameters from the schema: type, required first, enum, default, limits', () => {
    const text = renderToolSection([
      tool({
        name: 'search',
        parameters: {
          type: 'object',
          properties: {
            sort: { type: 'string', enum: ['new', 'top'], default: 'top', description: 'Order of results' },
            tags: { type: 'array', items: { type: 'string' } },
            query: { type: 'string', minLength: 1, maxLength: 200, description: 'What to look for.' },
            limit: { type: 'integer', minimum: 1, maximum: 50 },
            since: { type: 'string', format: 'date' },
          },
          required: ['query'],
          additionalProperties: false,
        },
      }),
    ]);

    expect(text).toContain(
      [
        '**Parameters:**',
        '- `query` (string, required): What to look for. 1 to 200 characters.',
        '- `sort` (string, optional): Order of results. One of: "new", "top". Default: "top".',
        '- `tags` (array of string, optional)',
        '- `limit` (integer, optional): From 1 to 50.',
        '- `since` (string, optional): Format: date.',
      ].join('\n'),
    );
  });

  it('says when a tool takes no parameters, and leaves out hints and examples it lacks', () => {
    const text = renderToolSection([tool({ name: 'ping' })]);

    expect(text).toContain('### ping\nThe ping tool.\n\n**Parameters:** none\n\n# Choosing tools');
  });

  it('shows examples as calls, with non-ASCII text as it is', () => {
    const text = new ToolSection(builtInRegistry()).text();

    expect(text).toContain(
      '- 「明日の大阪の天気は？」: `get_weather({"location":"大阪","date":"tomorrow"})`',
    );
  });

  it('is cached until a tool is registered, then regenerated', () => {
    const registry = builtInRegistry();
    const list = vi.spyOn(registry, 'list');
    const section = new ToolSection(registry);

    const first = section.text();
    const listsAfterFirst = list.mock.calls.length;
    expect(section.text()).toBe(first);
    expect(list).toHaveBeenCalledTimes(listsAfterFirst); // served from the cache, not regenerated
    registry.register(tool({ name: 'translate', category: 'language' }));
    const second = section.text();

    expect(list.mock.calls.length).toBeGreaterThan(listsAfterFirst);
    expect(second).toContain('## Language tools (optional)\n\n### translate');
  });
});
