import {
  cutText,
  delayInWords,
  isJsonObject,
  reminderLateBy,
  reminderTextOf,
  type FunctionResult,
  type HistoryEntry,
  type JsonObject,
  type JsonValue,
  type UserEntry,
  utcOffsetOf,
  zonedParts,
} from '../domain/index.js';
import { noUsage, type ModelPort, type ModelRequest, type ModelResponse } from './model-port.js';
import { offlineIntentOf } from './offline-intent.js';

// The tools it knows by name; it calls one only when the request declares it.
const REPLY = 'reply';
const SKIP = 'skip';
const WEATHER = 'get_weather';
const CURRENT_TIME = 'get_current_time';
const SET_REMINDER = 'set_reminder';
const TOOL_FINDER = 'find_tools';

const NOTICE = {
  en: "I am kaiwa's offline model: set GEMINI_API_KEY for real answers.",
  ja: 'kaiwa のオフラインモデル (offline model) です。本当の応答には GEMINI_API_KEY を設定してください。',
} as const;
type Language = keyof typeof NOTICE;

/**
 * The stand-in when no Gemini credentials are set: deterministic, answers through the
 * `reply` tool like a real model must, and says what it is. It knows two tools by keyword,
 * so the emulator shows real tool calls: weather questions ("weather in Tokyo",
 * 「東京の天気」) call `get_weather`, time questions ("what day is it", 「今何時？」) call
 * `get_current_time` — in the city's own zone when they name a city it knows ("what time is
 * it in London?"), and a place it does not know gets "I do not know", never another zone's
 * time; once the result is in, it replies with a summary of it. When per-step
 * selection did not offer the tool it needs, it asks `find_tools` for it once and calls it
 * on the next step, as a real model should. A voice message gets a reply that it cannot listen.
 */
export class OfflineModel implements ModelPort {
  readonly name = 'offline';

  /** `timeZone`: the bot's (`KAIWA_TIME_ZONE`), whose clock "every day at 8" means. */
  constructor(private readonly options: { readonly timeZone?: string } = {}) {}

  generate(request: ModelRequest): Promise<ModelResponse> {
    return Promise.resolve(respond(request, this.options.timeZone ?? 'UTC'));
  }
}

function respond(request: ModelRequest, timeZone: string): ModelResponse {
  const currentTurn = entriesSinceLastUser(request.history);
  const userText = currentTurn
    .filter((entry): entry is UserEntry => entry.role === 'user')
    .map((entry) => entry.text)
    .join('\n');
  const available = new Set(request.tools.map((tool) => tool.name));
  const calls = currentTurn.flatMap((entry) => (entry.role === 'model' ? entry.calls : []));
  const finished = calls.some((call) => call.name === REPLY || call.name === SKIP);
  if (!available.has(REPLY) || userText === '' || finished) return nothingMore();

  const language: Language = /[\u3040-\u30ff\u3400-\u9fff]/.test(userText) ? 'ja' : 'en';
  const askedFor = new Set(calls.filter((call) => call.name === TOOL_FINDER).map((call) => call.args.name));
  if (calls.some((call) => call.name !== TOOL_FINDER)) {
    // Tools ran this turn: summarise what the known ones said, or stop (as before).
    const results = currentTurn.flatMap((entry) => (entry.role === 'tool' ? entry.results : []));
    const summaries = results
      .map((result) => summaryOf(result, userText, language))
      .filter((line) => line !== undefined);
    return summaries.length > 0 ? reply(summaries.join('\n'), language) : nothingMore();
  }

  if (isVoiceMessage(currentTurn, request)) {
    return reply(
      language === 'ja'
        ? 'ボイスメッセージを受け取りましたが、オフラインモデルは音声を聞けません (cannot listen to voice messages)。文字で送ってください。'
        : 'I got your voice message, but I cannot listen to voice messages. Please type it.',
      language,
    );
  }
  const what = reminderTextOf(userText);
  if (what !== undefined) {
    const lateBy = currentTurn
      .map((entry) => (entry.role === 'user' ? reminderLateBy(entry) : undefined))
      .find(Boolean);
    const late =
      lateBy === undefined
        ? ''
        : language === 'ja'
          ? '（遅れて届きました）'
          : ` (late: it was due ${delayInWords(lateBy)} ago)`;
    return reply(language === 'ja' ? `リマインダー：${what}${late}` : `Reminder: ${what}${late}`, language);
  }
  // A tool not offered at this step is asked for once through the tool finder.
  const reachable = (name: string) =>
    available.has(name) || (available.has(TOOL_FINDER) && !askedFor.has(name));
  const callOrFind = (name: string, args: JsonObject) =>
    available.has(name) ? call(name, args) : call(TOOL_FINDER, { name });
  const intent = offlineIntentOf(userText);
  if (intent?.kind === 'reminder' && reachable(SET_REMINDER)) {
    return callOrFind(SET_REMINDER, { text: intent.text, delay_minutes: intent.minutes });
  }
  if (intent?.kind === 'repeating reminder' && reachable(SET_REMINDER)) {
    // Today's date at that clock time, in the bot's zone: one already past starts tomorrow.
    const said = currentTurn.findLast((entry) => entry.role === 'user')?.timestamp ?? 0;
    return callOrFind(SET_REMINDER, {
      text: intent.text,
      when: localDateTime(said, intent.hour, intent.minute, timeZone),
      repeat: intent.repeat,
      time_zone: timeZone,
    });
  }
  if (intent?.kind === 'weather' && reachable(WEATHER)) {
    if (intent.location === undefined) {
      return reply(
        language === 'ja'
          ? 'どこの天気ですか？「東京の天気」のように場所を入れてください。'
          : 'Which place? Try “weather in Tokyo”.',
        language,
      );
    }
    return callOrFind(WEATHER, {
      location: intent.location,
      ...(intent.date !== 'today' && { date: intent.date }),
    });
  }
  if (intent?.kind === 'time' && reachable(CURRENT_TIME)) {
    if (intent.place !== undefined && intent.timeZone === undefined) {
      return reply(
        language === 'ja'
          ? `「${intent.place}」のタイムゾーンがわかりません。ロンドン、ニューヨーク、シドニーのような都市名か、Europe/London のような IANA のタイムゾーン名で聞いてください。`
          : `I do not know the time zone of “${intent.place}”. Ask about a large city such as London, New York or Sydney, or name an IANA zone such as Europe/London.`,
        language,
      );
    }
    return callOrFind(CURRENT_TIME, intent.timeZone === undefined ? {} : { time_zone: intent.timeZone });
  }
  return reply(`You said: “${userText}”.`, 'en');
}

/** The turn's message is a voice message (its bytes in `media`, or only its LINE reference). */
function isVoiceMessage(currentTurn: readonly HistoryEntry[], request: ModelRequest): boolean {
  const users = currentTurn.filter((entry): entry is UserEntry => entry.role === 'user');
  return (
    (request.media ?? []).some((part) => part.kind === 'audio') ||
    users.some((entry) => entry.attachment?.kind === 'audio')
  );
}

function summaryOf(result: FunctionResult, userText: string, language: Language): string | undefined {
  const response = result.response;
  if (result.name === SET_REMINDER) return reminderSummary(response, language);
  if (result.name !== WEATHER && result.name !== CURRENT_TIME) return undefined;
  if (typeof response.error === 'string') {
    const what = result.name === WEATHER ? ['the weather', '天気'] : ['the time', '時刻'];
    return language === 'ja'
      ? `${what[1]}を取得できませんでした（${response.error}）。`
      : `I could not get ${what[0]} (${response.error}).`;
  }
  if (result.name === WEATHER) return weatherSummary(response, language);
  const asked = offlineIntentOf(userText);
  return timeSummary(response, language, asked?.kind === 'time' ? asked.place : undefined);
}

function reminderSummary(response: JsonObject, language: Language): string {
  if (typeof response.error === 'string') {
    return language === 'ja'
      ? `リマインダーを設定できませんでした（${response.error}）。`
      : `I could not set the reminder (${response.error}).`;
  }
  if (typeof response.repeat === 'string') {
    const every = {
      daily: ['every day', '毎日'],
      weekdays: ['every weekday', '平日'],
      weekly: ['every week', '毎週'],
    }[response.repeat] ?? [response.repeat, response.repeat];
    return language === 'ja'
      ? `${every[1]}「${text(response.text)}」をお知らせします（${text(response.time_zone)}、次は ${text(response.due)}）。`
      : `I will remind you to ${text(response.text)} ${every[0]} (${text(response.time_zone)}; next: ${text(response.due)}).`;
  }
  return language === 'ja'
    ? `${text(response.due)} に「${text(response.text)}」をお知らせします。`
    : `I will remind you to ${text(response.text)} at ${text(response.due)}.`;
}

/** `2026-11-28T08:00:00+09:00`: the date `at` has in `timeZone`, at that clock time, with the zone's offset then. */
function localDateTime(at: number, hour: number, minute: number, timeZone: string): string {
  const parts = zonedParts(at, timeZone, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    timeZoneName: 'longOffset',
  });
  const clock = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00`;
  return `${parts.year}-${parts.month}-${parts.day}T${clock}${utcOffsetOf(parts.timeZoneName)}`;
}

function weatherSummary(report: JsonObject, language: Language): string {
  const place = report.area ? `${text(report.location)} (${text(report.area)})` : text(report.location);
  const current = isJsonObject(report.current) ? report.current : undefined;
  const range = `${text(report.minTempC)}–${text(report.maxTempC)}°C`;
  if (language === 'ja') {
    const now = current ? `現在 ${text(current.tempC)}°C・${text(current.condition)}、` : '';
    return `${place} の ${text(report.date)} の天気：${text(report.condition)}、${now}気温 ${range}、降水確率 最大 ${text(report.chanceOfRainPercent)}%。`;
  }
  const now = current ? `, now ${text(current.tempC)}°C and ${text(current.condition)}` : '';
  return `Weather for ${place} on ${text(report.date)}: ${text(report.condition)}${now}; ${range}, up to ${text(report.chanceOfRainPercent)}% chance of rain.`;
}

function timeSummary(time: JsonObject, language: Language, place: string | undefined): string {
  const offset = `UTC${text(time.utcOffset)}`;
  const zone =
    place === undefined || place === time.timeZone
      ? `${text(time.timeZone)} (${offset})`
      : `${place} (${text(time.timeZone)}, ${offset})`;
  return language === 'ja'
    ? `${zone} の現在時刻は ${text(time.date)}（${text(time.weekday)}）${text(time.time)} です。`
    : `It is ${text(time.weekday)}, ${text(time.date)}, ${text(time.time)} in ${zone}.`;
}

function reply(message: string, language: Language): ModelResponse {
  return call(REPLY, { message: truncate(`(offline model) ${message} ${NOTICE[language]}`, 5000) });
}

function call(name: string, args: JsonObject): ModelResponse {
  return { calls: [{ name, args }], usage: noUsage };
}

function nothingMore(): ModelResponse {
  return { text: 'Nothing more to do.', calls: [], usage: noUsage };
}

/** The user messages of the current turn and everything after them. */
function entriesSinceLastUser(history: readonly HistoryEntry[]): HistoryEntry[] {
  const lastUser = history.findLastIndex((entry) => entry.role === 'user');
  if (lastUser < 0) return [];
  let first = lastUser;
  while (first > 0 && history[first - 1]?.role === 'user') first--;
  return history.slice(first);
}

function text(value: JsonValue | undefined): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '?';
}

function truncate(message: string, max: number): string {
  return message.length <= max ? message : cutText(message, max - 1) + '…';
}
