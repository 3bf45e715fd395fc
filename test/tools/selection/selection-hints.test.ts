import { describe, expect, it } from 'vitest';
import { defineTool, ToolDefinitionError, ToolRegistry, type ToolSpec } from '../../../src/tools/index.js';
import { KeywordMatcher } from '../../../src/tools/selection/index.js';

const hinted = (overrides: Partial<ToolSpec>) =>
  defineTool({
    name: 'hinted',
    description: 'A tool with selection hints.',
    category: 'test',
    optional: true,
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    response: { type: 'object' },
    ...overrides,
  }).implement(() => Promise.resolve({ forLLM: {} }));

describe('selection hints', () => {
  it.each<[string, Partial<ToolSpec>, string]>([
    ['an empty keyword', { keywords: ['weather', ' '] }, 'a keyword is empty'],
    ['a global intent', { intents: [/in \d+ minutes/g] }, 'has the g or y flag'],
    ['a sticky intent', { intents: [/in \d+ minutes/y] }, 'has the g or y flag'],
  ])('refuses %s at registration', (_case, overrides, reason) => {
    const register = () => new ToolRegistry().register(hinted(overrides));

    expect(register).toThrow(ToolDefinitionError);
    expect(register).toThrow(reason);
  });

  it.each<[string, string | undefined]>([
    ['Is it raining?', 'rain'],
    ['RAIN tomorrow', 'rain'],
    ['ｒａｉｎ', 'rain'],
    ['I missed the train', undefined],
    ['brainstorm', undefined],
    ['明日は雨？', '雨'],
    ['雨宮さん', '雨'], // no word boundaries in Japanese: a false positive that costs one offered tool
  ])('finds keywords at word starts in Latin script, anywhere in Japanese: %s', (text, expected) => {
    expect(new KeywordMatcher(['rain', '雨']).firstIn(text)).toBe(expected);
  });
});
