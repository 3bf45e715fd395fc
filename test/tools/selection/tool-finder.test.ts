import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/domain/index.js';
import { TOOL_FINDER_NAME, toolsRequestedInTurn } from '../../../src/tools/selection/index.js';
import { builtInRegistry, called, requested, said } from './selection-fixtures.js';

const callContext = () => ({
  source: { kind: 'user' as const, id: 'U1' },
  turnId: 't1',
  signal: new AbortController().signal,
  clock: { now: () => 0 },
});

function find(args: JsonObject) {
  return builtInRegistry().execute({ id: 'c1', name: TOOL_FINDER_NAME, args }, callContext());
}

const OPTIONAL = [
  'cancel_reminder',
  'get_current_time',
  'get_weather',
  'list_reminders',
  'set_reminder',
  'start_poll',
];

describe('the tool finder (meta-tool)', () => {
  it('lists every optional tool in one line each: its call shape and description', async () => {
    const outcome = await find({});

    expect(outcome.isError).toBe(false);
    const tools = outcome.response.tools as { name: string; summary: string }[];
    expect(tools.map((tool) => tool.name)).toEqual(OPTIONAL);
    expect(tools.find((tool) => tool.name === 'get_weather')?.summary).toBe(
      '`get_weather(location, date?, detail?)`: Get the weather for a place from wttr.in: conditions, temperatures and chance of rain for today, tomorrow or the day after.',
    );
    expect(tools.every((tool) => !tool.summary.includes('\n'))).toBe(true);
  });

  it.each([
    [
      'an English word from the description',
      'reminder',
      ['cancel_reminder', 'list_reminders', 'set_reminder'],
    ],
    ['a Japanese keyword', '天気を知りたい', ['get_weather']],
    ['a keyword', 'vote', ['start_poll']],
  ])('lists only the tools matching a query: %s', async (_case, query, expected) => {
    const outcome = await find({ query });

    expect((outcome.response.tools as { name: string }[]).map((tool) => tool.name)).toEqual(expected);
  });

  it('lists everything, and says so, when nothing matches the query', async () => {
    const outcome = await find({ query: 'translate into French' });

    expect((outcome.response.tools as { name: string }[]).map((tool) => tool.name)).toEqual(OPTIONAL);
    expect(outcome.response.note).toMatch(/^nothing matched "translate into French"/);
  });

  it('enables a tool by name and returns its full detail', async () => {
    const outcome = await find({ name: 'set_reminder' });

    expect(outcome.response).toMatchObject({
      enabled: 'set_reminder',
      note: 'set_reminder is offered from your next step on: call it then.',
    });
    expect(outcome.response.detail).toContain('### set_reminder\n');
    expect(outcome.response.detail).toContain(
      '- `text` (string, required): What to remind of. 1 to 500 characters.',
    );
    expect(outcome.response.detail).toContain('**Examples:**');
  });

  it.each(['translate', TOOL_FINDER_NAME])('answers an error the model can act on for "%s"', async (name) => {
    const outcome = await find({ name });

    expect(outcome.isError).toBe(true);
    expect(outcome.response).toEqual({
      error: `no tool named "${name}"; call find_tools without arguments to list them`,
    });
  });

  it('reads what was enabled from the turn’s own results, so a restored turn still has it', () => {
    const history = [
      said('one', 't1'),
      ...requested('t1', 'get_weather'),
      said('two', 't2'),
      ...requested('t2', 'set_reminder'),
      // A failed request enables nothing.
      ...called('t2', TOOL_FINDER_NAME, { error: 'no tool named "x"' }, { name: 'x' }),
    ];

    expect([...toolsRequestedInTurn(history, 't2')]).toEqual(['set_reminder']);
    expect([...toolsRequestedInTurn(history, 't1')]).toEqual(['get_weather']);
  });
});
