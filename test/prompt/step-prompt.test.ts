import { describe, expect, it, vi } from 'vitest';
import type { HistoryEntry } from '../../src/domain/index.js';
import { StepPrompt } from '../../src/prompt/step-prompt.js';
import { SystemPrompt } from '../../src/prompt/system-prompt.js';
import { ToolRegistry, createWeatherTool, defineTool, replyTool, skipTool } from '../../src/tools/index.js';
import { builtInRegistry, requested, said } from '../tools/selection/selection-fixtures.js';

const persona = 'You are Momo, a cheerful cat who answers in short sentences.';

function stepFor(prompt: StepPrompt, history: HistoryEntry[]) {
  const lastUser = history.findLast((entry) => entry.role === 'user');
  const turnId = lastUser?.role === 'user' ? lastUser.eventId : 'none';
  return prompt.forStep({ sourceKind: 'user', history, turnId, currentEventIds: [turnId] });
}

const conversations: [string, HistoryEntry[]][] = [
  ['small talk', [said('hello', 't1')]],
  ['weather', [said('weather in Osaka tomorrow?', 't2')]],
  ['a reminder', [said('remind me in 5 minutes to stretch', 't3')]],
  ['a tool asked for', [said('hmm', 't4'), ...requested('t4', 'cancel_reminder')]],
];

describe('the step prompt: a stable prefix and a per-step part', () => {
  it('keeps the prefix byte for byte while the offered set changes', () => {
    const prompt = new StepPrompt(builtInRegistry(), persona);

    const steps = conversations.map(([, history]) => stepFor(prompt, history));

    const offeredSets = steps.map((step) => step.tools.map((tool) => tool.name).join(','));
    expect(new Set(offeredSets).size).toBe(conversations.length);
    expect(new Set(steps.map((step) => step.stepGuidance)).size).toBe(conversations.length);
    for (const step of steps) expect(step.systemInstruction).toBe(prompt.stablePrefix());
  });

  it('has persona, required tools in full, optional tools by category only, then the rules', () => {
    const prefix = new StepPrompt(builtInRegistry(), persona).stablePrefix();

    expect(prefix.startsWith(`${persona}\n\n# Tools\n`)).toBe(true);
    for (const name of ['reply', 'skip', 'find_tools']) expect(prefix).toContain(`### ${name}\n`);
    for (const name of ['get_weather', 'get_current_time', 'start_poll']) expect(prefix).not.toContain(name);
    for (const name of ['set_reminder', 'list_reminders', 'cancel_reminder']) {
      expect(prefix).not.toContain(`### ${name}`);
    }
    expect(prefix).toContain(
      '6 optional tools, for: group (1), information (2), reminders (3). `find_tools` lists and enables those not offered for this step.',
    );
    expect(prefix.indexOf('# How to answer')).toBeGreaterThan(prefix.indexOf('# Choosing tools'));
  });

  it('pins the prefix and a step part', async () => {
    const prompt = new StepPrompt(builtInRegistry(), persona);

    await expect(prompt.stablePrefix()).toMatchFileSnapshot('./__snapshots__/stable-prefix.txt');
    await expect(stepFor(prompt, conversations[1]![1]).stepGuidance).toMatchFileSnapshot(
      './__snapshots__/step-guidance.txt',
    );
  });

  it('details complex offered tools in full, summarises the others in one line, leaves the rest out', () => {
    const step = stepFor(new StepPrompt(builtInRegistry(), persona), [said('明日の大阪の天気は？', 't1')]);

    const guidance = step.stepGuidance ?? '';
    expect(guidance).toContain('### get_weather\n'); // complex: full detail
    expect(guidance).toContain('**Parameters:**\n- `location` (string, required)');
    expect(guidance).toContain(
      '- `get_current_time(time_zone?)`: Get the current date, time and day of the week in a time zone.',
    );
    expect(guidance).not.toContain('### get_current_time');
    expect(guidance).not.toContain('reminder');
  });

  it('says to ask the tool finder when no optional tool fits', () => {
    const step = stepFor(new StepPrompt(builtInRegistry(), persona), [said('hello', 't1')]);

    expect(step.stepGuidance).toBe(
      '# Tools for this step\nNo optional tool fits the conversation now; if the message needs one, call `find_tools`.',
    );
  });

  it('declares the offered tools only, and hands every declaration on for a cache', () => {
    const registry = builtInRegistry();
    const step = stepFor(new StepPrompt(registry, persona), [said('weather in Osaka?', 't1')]);

    expect(step.tools.map((tool) => tool.name)).toEqual(['find_tools', 'get_weather', 'reply', 'skip']);
    expect(step.allTools).toBe(registry.declarations());
    expect(step.selection.withheld).toEqual([
      'cancel_reminder',
      'get_current_time',
      'list_reminders',
      'set_reminder',
      'start_poll',
    ]);
  });

  it('without the tool finder, offers every tool with the plain system prompt', () => {
    const registry = new ToolRegistry()
      .register(replyTool)
      .register(skipTool)
      .register(createWeatherTool({ baseUrl: 'http://127.0.0.1:9' }));

    const step = stepFor(new StepPrompt(registry, persona), [said('hello', 't1')]);

    expect(step.systemInstruction).toBe(new SystemPrompt(registry, persona).text());
    expect(step.stepGuidance).toBeUndefined();
    expect(step.tools).toBe(registry.declarations());
  });

  it('caches the prefix until the registry changes', () => {
    const registry = builtInRegistry();
    const list = vi.spyOn(registry, 'list');
    const prompt = new StepPrompt(registry, persona);
    const first = prompt.stablePrefix();
    const listsAfterFirst = list.mock.calls.length;

    expect(prompt.stablePrefix()).toBe(first);
    expect(list).toHaveBeenCalledTimes(listsAfterFirst);
    const translate = defineTool({
      name: 'translate',
      description: 'Translate text.',
      category: 'language',
      optional: true,
      parameters: { type: 'object' },
      response: { type: 'object' },
    }).implement(() => Promise.resolve({ forLLM: {} }));
    registry.register(translate);

    expect(prompt.stablePrefix()).toContain(
      '7 optional tools, for: group (1), information (2), language (1)',
    );
  });
});
