import { describe, expect, it } from 'vitest';
import type { HistoryEntry, SourceKind } from '../../../src/domain/index.js';
import { selectTools, type SelectionReason } from '../../../src/tools/selection/index.js';
import { ToolRegistry, replyTool, skipTool, createWeatherTool } from '../../../src/tools/index.js';
import { builtInRegistry, called, requested, said } from './selection-fixtures.js';

const REQUIRED = ['find_tools', 'reply', 'skip'];

/** The current turn is the last user message's; its id is that message's event id. */
function select(history: HistoryEntry[], sourceKind: SourceKind = 'user') {
  const lastUser = history.findLast((entry) => entry.role === 'user');
  const turnId = lastUser?.role === 'user' ? lastUser.eventId : 'none';
  return selectTools(builtInRegistry().list(), {
    sourceKind,
    history,
    turnId,
    currentEventIds: [turnId],
  });
}

function optionalOffered(history: HistoryEntry[], sourceKind: SourceKind = 'user'): string[] {
  return select(history, sourceKind)
    .offered.map((tool) => tool.name)
    .filter((name) => !REQUIRED.includes(name));
}

describe('per-step tool selection: conversations → offered optional tools', () => {
  it.each<[string, HistoryEntry[], SourceKind, string[]]>([
    ['small talk', [said('hello there, how are you?')], 'user', []],
    ['an English weather question', [said("What's the weather in Osaka?")], 'user', ['get_weather']],
    ['a Japanese weather question', [said('大阪は雨かな')], 'user', ['get_weather']],
    ['a full-width keyword', [said('ＷＥＡＴＨＥＲ in Tokyo')], 'user', ['get_weather']],
    ['a keyword inside another word', [said('I missed my train')], 'user', []],
    [
      'weather for tomorrow, in Japanese',
      [said('明日の大阪の天気は？')],
      'user',
      ['get_current_time', 'get_weather'],
    ],
    ['a reminder by keyword', [said('remind me to stretch')], 'user', ['set_reminder']],
    ['a reminder by intent', [said('ping me in 10 minutes about the oven')], 'user', ['set_reminder']],
    ['a Japanese reminder', [said('10分後に薬を飲むとリマインドして')], 'user', ['set_reminder']],
    [
      'asking about reminders in Japanese',
      [said('リマインダーを見せて')],
      'user',
      ['list_reminders', 'set_reminder'],
    ],
    ['cancelling', [said('please cancel the laundry one')], 'user', ['cancel_reminder']],
    [
      'a weather question three messages back',
      [said('weather in Kyoto?'), said('thanks'), said('and the food there?')],
      'user',
      ['get_weather'],
    ],
    [
      'a weather question five messages back, out of the window',
      [said('weather in Kyoto?'), said('ok'), said('thanks'), said('and the food?'), said('nice')],
      'user',
      [],
    ],
    ['small talk in a group: the group tool is always there', [said('hi all')], 'group', ['start_poll']],
    ['small talk in a room: the group tool is not always there', [said('hi all')], 'room', []],
    ['a poll in a room, by keyword', [said("let's vote on lunch")], 'room', ['start_poll']],
    ['a poll in a 1:1 chat: not a tool for this chat', [said("let's vote on lunch")], 'user', []],
  ])('%s', (_case, history, sourceKind, expected) => {
    expect(optionalOffered(history, sourceKind)).toEqual(expected);
  });

  it.each<[string, HistoryEntry[], string[]]>([
    [
      'a tool called in the previous turn stays offered',
      [said('and Kyoto?', 't1'), ...called('t1', 'get_weather'), said('and Osaka?', 't2')],
      ['get_weather'],
    ],
    [
      'a tool called three turns ago is dropped',
      [
        said('and Kyoto?', 't1'),
        ...called('t1', 'get_weather'),
        ...['t2', 't3'].flatMap((turn) => [said('ok', turn), ...called(turn, 'reply')]),
        said('and Osaka?', 't4'),
      ],
      [],
    ],
    [
      'a tool enabled through the tool finder this turn',
      [said('put a note in my calendar', 't1'), ...requested('t1', 'set_reminder')],
      ['set_reminder'],
    ],
    [
      'a tool enabled in an earlier turn is not enabled any more',
      [said('note this', 't1'), ...requested('t1', 'set_reminder'), said('ok', 't2')],
      [],
    ],
    [
      'a requested tool is offered even outside the chats it suits',
      [said('count hands', 't1'), ...requested('t1', 'start_poll')],
      ['start_poll'],
    ],
  ])('%s', (_case, history, expected) => {
    expect(optionalOffered(history)).toEqual(expected);
  });

  it('always offers the required tools and the tool finder, and withholds the rest by name', () => {
    const selection = select([said('hello')]);

    expect(selection.offered).toEqual(REQUIRED.map((name) => ({ name, reasons: [{ kind: 'required' }] })));
    expect(selection.withheld).toEqual([
      'cancel_reminder',
      'get_current_time',
      'get_weather',
      'list_reminders',
      'set_reminder',
      'start_poll',
    ]);
  });

  it('explains each offer, with every reason that applies, the current message before earlier ones', () => {
    const history = [
      said('rain in Kyoto?', 't1'),
      ...called('t1', 'get_weather'),
      said('is it snowing in Sapporo today?', 't2'),
      ...requested('t2', 'get_weather'),
    ];

    const weather = select(history).offered.find((tool) => tool.name === 'get_weather');

    expect(weather?.reasons).toEqual<SelectionReason[]>([
      { kind: 'requested' },
      { kind: 'keyword', keyword: 'snow', message: 'current' },
      { kind: 'used-recently', turnsAgo: 1 },
    ]);
  });

  it('offers everything when no tool finder is registered, since nothing could reach a withheld tool', () => {
    const registry = new ToolRegistry()
      .register(replyTool)
      .register(skipTool)
      .register(createWeatherTool({ baseUrl: 'http://127.0.0.1:9' }));

    const selection = selectTools(registry.list(), {
      sourceKind: 'user',
      history: [said('hello', 't1')],
      turnId: 't1',
      currentEventIds: ['t1'],
    });

    expect(selection.withheld).toEqual([]);
    expect(selection.offered.find((tool) => tool.name === 'get_weather')?.reasons).toEqual([
      { kind: 'no-tool-finder' },
    ]);
  });

  it('searches every message of a merged turn, however many', () => {
    const messages = ['weather in Nara?', 'a', 'b', 'c', 'd', 'e'].map((text, index) =>
      said(text, `m${index}`),
    );

    const selection = selectTools(builtInRegistry().list(), {
      sourceKind: 'user',
      history: messages,
      turnId: 'm0',
      currentEventIds: messages.map((entry) => (entry.role === 'user' ? entry.eventId : '')),
    });

    expect(selection.offered.find((tool) => tool.name === 'get_weather')?.reasons).toEqual([
      { kind: 'keyword', keyword: 'weather', message: 'current' },
    ]);
  });
});
