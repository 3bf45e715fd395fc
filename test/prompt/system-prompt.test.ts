import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_PERSONA, SystemPrompt } from '../../src/prompt/system-prompt.js';
import { ToolSection } from '../../src/prompt/tool-section.js';
import {
  ToolRegistry,
  createCurrentTimeTool,
  createWeatherTool,
  replyTool,
  skipTool,
} from '../../src/tools/index.js';

function registryWith(...names: ('skip' | 'get_weather' | 'get_current_time')[]) {
  const registry = new ToolRegistry().register(replyTool);
  if (names.includes('skip')) registry.register(skipTool);
  if (names.includes('get_weather')) registry.register(createWeatherTool({ baseUrl: 'http://127.0.0.1:9' }));
  if (names.includes('get_current_time')) {
    registry.register(createCurrentTimeTool({ defaultTimeZone: 'Asia/Tokyo' }));
  }
  return registry;
}

describe('the system prompt', () => {
  it('is the persona, then the generated tool section, then the reply rules', () => {
    const registry = registryWith('skip', 'get_weather', 'get_current_time');
    const persona = 'You are Momo, a cheerful cat who answers in short sentences.';

    const text = new SystemPrompt(registry, persona).text();

    const toolSection = new ToolSection(registry).text();
    expect(text.startsWith(`${persona}\n\n${toolSection}\n\n# How to answer\n`)).toBe(true);
  });

  it('pins the whole default prompt', async () => {
    const text = new SystemPrompt(registryWith('skip', 'get_weather', 'get_current_time')).text();

    expect(text.startsWith(DEFAULT_PERSONA)).toBe(true);
    await expect(text).toMatchFileSnapshot('./__snapshots__/system-prompt.txt');
  });

  it.each([
    ['reply only through the tool', 'The only way to send a message is the `reply` tool.'],
    ['do not call it when no reply is needed', 'When no reply is needed'],
    ['call it once', 'Call `reply` at most once per turn.'],
  ])('carries the reply rule: %s', (_rule, sentence) => {
    expect(new SystemPrompt(registryWith('skip')).text()).toContain(sentence);
  });

  it('has its rules mention skip only when the registry has it', () => {
    const rulesOf = (text: string) => text.slice(text.indexOf('# How to answer'));
    const withSkip = rulesOf(new SystemPrompt(registryWith('skip')).text());
    const withoutSkip = rulesOf(new SystemPrompt(registryWith()).text());

    expect(withSkip).toContain('call `skip` with the reason');
    expect(withoutSkip).not.toContain('skip');
    expect(withoutSkip).toContain('end the turn without calling it');
  });

  it('is cached until the registry changes', () => {
    const registry = registryWith('skip');
    const list = vi.spyOn(registry, 'list');
    const prompt = new SystemPrompt(registry);

    const first = prompt.text();
    const listsAfterFirst = list.mock.calls.length;
    expect(prompt.text()).toBe(first);
    expect(list).toHaveBeenCalledTimes(listsAfterFirst); // served from the cache, not regenerated
    expect(first).not.toContain('get_weather');
    registry.register(createWeatherTool({ baseUrl: 'http://127.0.0.1:9' }));

    expect(prompt.text()).toContain('### get_weather');
  });
});
