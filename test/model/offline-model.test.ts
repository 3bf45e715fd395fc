import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionResult, HistoryEntry, JsonObject } from '../../src/domain/index.js';
import { OfflineModel, type ModelResponse, type ToolDeclaration } from '../../src/model/index.js';
import { createCurrentTimeTool, createWeatherTool } from '../../src/tools/index.js';
import { inbound, say, startConversation, untilIdle } from '../support/conversation-harness.js';
import { startFakeWeatherServer } from '../support/fake-weather-server.js';

const declared = (...names: string[]): ToolDeclaration[] =>
  names.map((name) => ({ name, description: name, parameters: { type: 'object' } }));
const allTools = declared('get_current_time', 'get_weather', 'reply', 'skip');

const user = (text: string): HistoryEntry => ({ role: 'user', eventId: 'e1', text, timestamp: 0 });
const modelCalled = (name: string, args: JsonObject): HistoryEntry => ({
  role: 'model',
  turnId: 'e1',
  calls: [{ id: 'call-1', name, args }],
});
const toolAnswered = (name: string, response: JsonObject): HistoryEntry => ({
  role: 'tool',
  turnId: 'e1',
  results: [{ callId: 'call-1', name, response } satisfies FunctionResult],
});

function generate(history: HistoryEntry[], tools = allTools): Promise<ModelResponse> {
  return new OfflineModel().generate({
    systemInstruction: 'irrelevant',
    history,
    tools,
    signal: new AbortController().signal,
  });
}

const tokyoReport: JsonObject = {
  location: '東京',
  area: 'Tokyo, Japan',
  day: 'tomorrow',
  date: '2025-03-16',
  condition: 'Light drizzle',
  minTempC: 9,
  maxTempC: 13,
  chanceOfRainPercent: 91,
};

describe('offline model: which tool it calls', () => {
  it.each<[string, JsonObject]>([
    ["What's the weather in Tokyo?", { location: 'Tokyo' }],
    ['Will it rain in New York tomorrow?', { location: 'New York', date: 'tomorrow' }],
    ['forecast for Paris the day after tomorrow please', { location: 'Paris', date: 'day_after_tomorrow' }],
    ["London's weather", { location: 'London' }],
    ['東京の天気は？', { location: '東京' }],
    ['明日の大阪の天気を教えて', { location: '大阪', date: 'tomorrow' }],
    ['あさって札幌の天気どう？', { location: '札幌', date: 'day_after_tomorrow' }],
    ['京都天気', { location: '京都' }],
  ])('%s → get_weather %j', async (text, args) => {
    expect(await generate([user(text)])).toMatchObject({ calls: [{ name: 'get_weather', args }] });
  });

  it.each([
    'What time is it?',
    'what day is it today',
    "What's the date?",
    '今何時？',
    '今日は何曜日？',
    '今日は何日',
  ])('%s → get_current_time', async (text) => {
    expect(await generate([user(text)])).toMatchObject({ calls: [{ name: 'get_current_time', args: {} }] });
  });

  it.each<[string, string]>([
    ['What time is it in London?', 'Europe/London'],
    ['what time is it in New York right now', 'America/New_York'],
    ["What's the time in Paris?", 'Europe/Paris'],
    ['What is the current time in Los Angeles', 'America/Los_Angeles'],
    ['What day is it in Sydney?', 'Australia/Sydney'],
    ['Singapore: what time is it?', 'Asia/Singapore'],
    ['what time is it in bangkok', 'Asia/Bangkok'],
    ['What time is it in Europe/Berlin?', 'Europe/Berlin'],
    ['ロンドンは今何時？', 'Europe/London'],
    ['ソウルは何時ですか', 'Asia/Seoul'],
    ['今ベルリンは何曜日？', 'Europe/Berlin'],
  ])('%s → get_current_time in %s, the place’s own zone', async (text, timeZone) => {
    expect(await generate([user(text)])).toMatchObject({
      calls: [{ name: 'get_current_time', args: { time_zone: timeZone } }],
    });
  });

  it.each([
    ['What time is it in Atlantis?', 'I do not know the time zone of “Atlantis”'],
    ['what time is it in Springfield now', 'I do not know the time zone of “Springfield”'],
    ['アトランティスは何時？', '「アトランティス」のタイムゾーンがわかりません'],
  ])('says it does not know the place in "%s" instead of guessing', async (text, answer) => {
    const response = await generate([user(text)]);

    expect(response.calls).toHaveLength(1);
    expect(response.calls[0]?.name).toBe('reply');
    expect(response.calls[0]?.args.message).toContain(answer);
  });

  it.each([
    ['How is the weather?', 'Which place?'],
    ['今日の天気は？', 'どこの天気ですか'],
  ])('asks for the place when "%s" names none', async (text, question) => {
    const response = await generate([user(text)]);

    expect(response.calls).toHaveLength(1);
    expect(response.calls[0]?.name).toBe('reply');
    expect(response.calls[0]?.args.message).toContain(question);
  });

  it('still echoes anything else, saying it is the offline model', async () => {
    expect(await generate([user('hello there')])).toEqual({
      calls: [
        {
          name: 'reply',
          args: {
            message:
              "(offline model) You said: “hello there”. I am kaiwa's offline model: set GEMINI_API_KEY for real answers.",
          },
        },
      ],
      usage: { promptTokens: 0, outputTokens: 0, cachedTokens: 0 },
    });
  });

  it('shortens a long echo between characters, never inside an emoji', async () => {
    // Both ways the cut can fall: after a whole emoji, or after its first half.
    for (const text of ['😀'.repeat(2500), `x${'😀'.repeat(2500)}`]) {
      const response = await generate([user(text)]);

      const message = response.calls[0]?.args.message as string;
      expect(message.isWellFormed()).toBe(true);
      expect(message.endsWith('😀…')).toBe(true);
    }
  });

  it('echoes a weather question when get_weather is not declared', async () => {
    const response = await generate([user('weather in Tokyo')], declared('reply', 'skip'));

    expect(response.calls[0]).toMatchObject({
      name: 'reply',
      args: { message: expect.stringContaining('You said') as string },
    });
  });

  it('does nothing without a reply tool', async () => {
    expect((await generate([user('weather in Tokyo')], declared('get_weather'))).calls).toEqual([]);
  });
});

describe('offline model: after the tool result', () => {
  it('summarises a weather report through reply, in the language of the question', async () => {
    const japanese = await generate([
      user('明日の東京の天気は？'),
      modelCalled('get_weather', { location: '東京', date: 'tomorrow' }),
      toolAnswered('get_weather', tokyoReport),
    ]);
    const english = await generate([
      user('weather in Tokyo today'),
      modelCalled('get_weather', { location: 'Tokyo' }),
      toolAnswered('get_weather', {
        ...tokyoReport,
        location: 'Tokyo',
        day: 'today',
        current: { tempC: 14, condition: 'Partly cloudy' },
      }),
    ]);

    expect(japanese.calls).toEqual([
      {
        name: 'reply',
        args: {
          message:
            '(offline model) 東京 (Tokyo, Japan) の 2025-03-16 の天気：Light drizzle、気温 9–13°C、降水確率 最大 91%。 kaiwa のオフラインモデル (offline model) です。本当の応答には GEMINI_API_KEY を設定してください。',
        },
      },
    ]);
    expect(english.calls[0]?.args.message).toBe(
      "(offline model) Weather for Tokyo (Tokyo, Japan) on 2025-03-16: Light drizzle, now 14°C and Partly cloudy; 9–13°C, up to 91% chance of rain. I am kaiwa's offline model: set GEMINI_API_KEY for real answers.",
    );
  });

  it('summarises the time', async () => {
    const response = await generate([
      user('what time is it?'),
      modelCalled('get_current_time', {}),
      toolAnswered('get_current_time', {
        timeZone: 'Asia/Tokyo',
        date: '2025-03-15',
        time: '14:30',
        weekday: 'Saturday',
        utcOffset: '+09:00',
      }),
    ]);

    expect(response.calls[0]?.args.message).toContain(
      'It is Saturday, 2025-03-15, 14:30 in Asia/Tokyo (UTC+09:00).',
    );
  });

  it('names the place it was asked about', async () => {
    const response = await generate([
      user('What time is it in London?'),
      modelCalled('get_current_time', { time_zone: 'Europe/London' }),
      toolAnswered('get_current_time', {
        timeZone: 'Europe/London',
        date: '2025-03-15',
        time: '05:30',
        weekday: 'Saturday',
        utcOffset: '+00:00',
      }),
    ]);

    expect(response.calls[0]?.args.message).toContain(
      'It is Saturday, 2025-03-15, 05:30 in London (Europe/London, UTC+00:00).',
    );
  });

  it('passes a tool error on to the user', async () => {
    const response = await generate([
      user('weather in Atlantis'),
      modelCalled('get_weather', { location: 'Atlantis' }),
      toolAnswered('get_weather', {
        error: 'no weather found for "Atlantis"; try the name of a nearby city',
      }),
    ]);

    expect(response.calls[0]?.args.message).toContain(
      'I could not get the weather (no weather found for "Atlantis"; try the name of a nearby city).',
    );
  });

  it.each<[string, HistoryEntry[]]>([
    [
      'reply was already called',
      [
        user('weather in Tokyo'),
        modelCalled('reply', { message: 'Sunny' }),
        toolAnswered('reply', { status: 'sent' }),
      ],
    ],
    [
      'only an unknown tool ran',
      [user('weather in Tokyo'), modelCalled('lookup', {}), toolAnswered('lookup', { summary: 'x' })],
    ],
  ])('stops when %s', async (_case, history) => {
    expect(await generate(history)).toMatchObject({ calls: [], text: 'Nothing more to do.' });
  });
});

describe('offline model in a conversation with the real tools', () => {
  let weather: Awaited<ReturnType<typeof startFakeWeatherServer>>;
  beforeAll(async () => {
    weather = await startFakeWeatherServer();
  });
  afterAll(() => weather.close());

  it('calls get_weather on the local server, then replies with the result', async () => {
    const { actor, delivery } = startConversation({
      model: new OfflineModel(),
      tools: [createWeatherTool({ baseUrl: weather.baseUrl })],
    });

    say(actor, inbound('明日の東京の天気は？'));
    const snapshot = await untilIdle(actor);

    expect(weather.rawPaths).toEqual(['/%E6%9D%B1%E4%BA%AC?format=j1']);
    expect(delivery.texts).toHaveLength(1);
    expect(delivery.texts[0]).toContain('東京 (Tokyo, Japan) の 2025-03-16 の天気：Light drizzle');
    expect(delivery.texts[0]).toContain('offline model');
    const calls = snapshot.context.history.flatMap((entry) => (entry.role === 'model' ? entry.calls : []));
    expect(calls.map((call) => call.name)).toEqual(['get_weather', 'reply']);
  });

  it("calls get_current_time, which reads the conversation's clock", async () => {
    // The conversation's clock stands at 0: 1970-01-01T09:00 in Tokyo.
    const { actor, delivery } = startConversation({
      model: new OfflineModel(),
      tools: [createCurrentTimeTool({ defaultTimeZone: 'Asia/Tokyo' })],
      now: () => 0,
    });

    say(actor, inbound('What day is it?'));
    await untilIdle(actor);

    expect(delivery.texts).toEqual([
      "(offline model) It is Thursday, 1970-01-01, 09:00 in Asia/Tokyo (UTC+09:00). I am kaiwa's offline model: set GEMINI_API_KEY for real answers.",
    ]);
  });

  it('answers a time question about a city in that city’s zone, not the default one', async () => {
    // The conversation's clock stands at 0: 1969-12-31T19:00 in New York.
    const { actor, delivery } = startConversation({
      model: new OfflineModel(),
      tools: [createCurrentTimeTool({ defaultTimeZone: 'Asia/Tokyo' })],
      now: () => 0,
    });

    say(actor, inbound('What time is it in New York?'));
    await untilIdle(actor);

    expect(delivery.texts).toHaveLength(1);
    expect(delivery.texts[0]).toContain(
      'It is Wednesday, 1969-12-31, 19:00 in New York (America/New_York, UTC-05:00).',
    );
    expect(delivery.texts[0]).not.toContain('Tokyo');
  });
});

describe('the offline model and reminders', () => {
  const tools = ['reply', 'set_reminder'].map((name) => ({
    name,
    description: name,
    parameters: { type: 'object' as const },
  }));
  const userEntry = (text: string) => ({ role: 'user' as const, eventId: 'e', text, timestamp: 0 });
  const ask = (history: HistoryEntry[]) =>
    new OfflineModel().generate({
      systemInstruction: '',
      history,
      tools,
      signal: new AbortController().signal,
    });

  it.each([
    ['remind me in 5 minutes to stretch', { text: 'stretch', delay_minutes: 5 }],
    ['Remind me to call mom in 2 hours', { text: 'call mom', delay_minutes: 120 }],
    ['10分後に薬を飲むとリマインドして', { text: '薬を飲む', delay_minutes: 10 }],
  ])('%s → set_reminder', async (text, args) => {
    expect((await ask([userEntry(text)])).calls).toEqual([{ name: 'set_reminder', args }]);
  });

  it.each([
    [
      'remind me every day at 8 to stretch',
      { text: 'stretch', when: '2026-11-28T08:00:00+09:00', repeat: 'daily' },
    ],
    [
      'Remind me to take the medicine every weekday at 7:30 pm',
      { text: 'take the medicine', when: '2026-11-28T19:30:00+09:00', repeat: 'weekdays' },
    ],
    [
      'remind me every week at 12 am about the bins',
      { text: 'the bins', when: '2026-11-28T00:00:00+09:00', repeat: 'weekly' },
    ],
    [
      '毎日8時半に薬を飲むとリマインドして',
      { text: '薬を飲む', when: '2026-11-28T08:30:00+09:00', repeat: 'daily' },
    ],
    ['平日7時に起きるって教えて', { text: '起きる', when: '2026-11-28T07:00:00+09:00', repeat: 'weekdays' }],
  ])("%s → a repeating set_reminder at that clock time in the bot's zone", async (text, args) => {
    // Said at 2026-11-28 10:00 in Tokyo: a time already past today starts tomorrow (the tool's rule).
    const said = { ...userEntry(text), timestamp: Date.parse('2026-11-28T01:00:00Z') };
    const response = await new OfflineModel({ timeZone: 'Asia/Tokyo' }).generate({
      systemInstruction: '',
      history: [said],
      tools,
      signal: new AbortController().signal,
    });
    expect(response.calls).toEqual([{ name: 'set_reminder', args: { ...args, time_zone: 'Asia/Tokyo' } }]);
  });

  it('says how a repeating reminder repeats once it is set', async () => {
    const set = {
      role: 'tool' as const,
      turnId: 't',
      results: [
        {
          callId: 'c',
          name: 'set_reminder',
          response: {
            id: 'r',
            due: '2026-11-28T23:00:00.000Z',
            text: 'stretch',
            repeat: 'daily',
            time_zone: 'Asia/Tokyo',
          },
        },
      ],
    };
    const call = {
      role: 'model' as const,
      turnId: 't',
      calls: [{ id: 'c', name: 'set_reminder', args: {} }],
    };
    const response = await ask([userEntry('remind me every day at 8 to stretch'), call, set]);
    expect(response.calls[0]?.args.message).toContain(
      'I will remind you to stretch every day (Asia/Tokyo; next: 2026-11-28T23:00:00.000Z).',
    );
  });

  it('writes the reminder when it comes back due', async () => {
    const response = await ask([userEntry('[reminder due] stretch')]);
    expect(response.calls[0]?.args.message).toContain('Reminder: stretch');
    expect(response.calls[0]?.args.message).not.toContain('late');
  });

  it('says so when the reminder came late', async () => {
    const late = { event: 'reminder' as const, timestamp: 50 * 60_000, dueAt: 5 * 60_000 };
    const english = await ask([{ ...userEntry('[reminder due] stretch'), ...late }]);
    const japanese = await ask([{ ...userEntry('[reminder due] ストレッチ'), ...late }]);

    expect(english.calls[0]?.args.message).toContain('Reminder: stretch (late: it was due 45 minutes ago)');
    expect(japanese.calls[0]?.args.message).toContain('リマインダー：ストレッチ（遅れて届きました）');
  });
});

describe('the offline model and the tool finder', () => {
  const withFinder = declared('find_tools', 'reply', 'skip');

  it('asks the tool finder for a tool it needs but was not offered', async () => {
    expect(await generate([user('weather in Tokyo?')], withFinder)).toMatchObject({
      calls: [{ name: 'find_tools', args: { name: 'get_weather' } }],
    });
  });

  it('calls the tool once the finder enabled it and the step offers it', async () => {
    const history = [
      user('weather in Tokyo?'),
      modelCalled('find_tools', { name: 'get_weather' }),
      toolAnswered('find_tools', { enabled: 'get_weather' }),
    ];

    expect(await generate(history, declared('find_tools', 'get_weather', 'reply'))).toMatchObject({
      calls: [{ name: 'get_weather', args: { location: 'Tokyo' } }],
    });
  });

  it('asks only once: when the tool is still not offered, it answers without it', async () => {
    const history = [
      user('weather in Tokyo?'),
      modelCalled('find_tools', { name: 'get_weather' }),
      toolAnswered('find_tools', { error: 'no tool named "get_weather"' }),
    ];

    const response = await generate(history, withFinder);

    expect(response.calls).toHaveLength(1);
    expect(response.calls[0]?.name).toBe('reply');
    expect(response.calls[0]?.args.message).toContain('You said');
  });
});
