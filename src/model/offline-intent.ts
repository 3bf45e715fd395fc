import { cutText } from '../domain/index.js';
import { timeZoneOfPlace } from './city-time-zones.js';

/** What the offline model understood a message to ask, by keywords in English and Japanese. */
export type OfflineIntent =
  | {
      readonly kind: 'weather';
      /** Undefined when the message names no place the model could pick out. */
      readonly location: string | undefined;
      readonly date: 'today' | 'tomorrow' | 'day_after_tomorrow';
    }
  /**
   * "What time is it?" has no `place` (the default zone); "… in London?" has the place and its
   * zone; a place the model does not know has no `timeZone`.
   */
  | { readonly kind: 'time'; readonly place?: string; readonly timeZone?: string }
  /** "remind me in 5 minutes to stretch", 「10分後に薬を飲むとリマインドして」 */
  | { readonly kind: 'reminder'; readonly minutes: number; readonly text: string }
  /** "remind me every weekday at 7:30 to take the medicine", 「毎日8時に薬を飲むとリマインドして」 */
  | {
      readonly kind: 'repeating reminder';
      readonly repeat: Repeat;
      readonly hour: number;
      readonly minute: number;
      readonly text: string;
    };

const ENGLISH_REMINDER =
  /\bremind me (?:in )?(\d{1,6}) ?(minutes?|mins?|hours?|h)\b(?: to| about| that)? ?(.*)$/i;
const ENGLISH_REMINDER_TEXT_FIRST =
  /\bremind me (?:to |about )?(.+?) in (\d{1,6}) ?(minutes?|mins?|hours?|h)\b/i;
const JAPANESE_REMINDER = /(\d{1,6})\s*(分|時間)後に(.+?)(?:と|って)?(?:リマインド|教えて|知らせて)/;
// "every day at 8", "every weekday at 7:30 am", "every week at 19:00": the rule, then the time.
const ENGLISH_EVERY = /\bevery (day|weekday|week)\b,? at (\d{1,2})(?::(\d{2}))? ?(am|pm)?\b/i;
const ENGLISH_REPEATING_REMINDER =
  /\bremind me (?:to |about )?(.*?)\s*\bevery (?:day|weekday|week)\b[^,]*?(?:,? to | about |$)(.*)$/i;
const JAPANESE_EVERY =
  /(毎日|平日|毎週)(?:の)?\s*(\d{1,2})時(?:(半)|(\d{1,2})分)?に(.+?)(?:と|って)?(?:リマインド|教えて|知らせて)/;

const WEATHER_WORDS = /\b(?:weather|forecast|temperature|rain|raining|rainy)\b|天気|天候|予報|気温/i;
const TIME_WORDS =
  /\bwhat time\b|\btime is it\b|\bcurrent time\b|\bwhat day\b|\bwhat(?:'s| is) the time\b|\bwhat(?:'s| is) (?:the )?date\b|\btoday's date\b|何時|何日|何曜日|日付/i;

const DAY_AFTER_TOMORROW = /\bday after tomorrow\b|明後日|あさって/i;
const TOMORROW = /\btomorrow\b|明日|あした/i;

// "what time is it in New York now": the place after the last "in".
const ENGLISH_TIME_PLACE = /\bin\s+([^?!.,;]+)[?!.,;]*\s*$/i;
// 「ロンドンは今何時？」「今ベルリンは何曜日？」: the word before the question, without particles.
const JAPANESE_TIME_PLACE = /([^\s\p{P}のはがもでにを]+)[のはでが]?(?:今|いま)?(?:何時|何日|何曜日|日付)/u;

// Words that say when, not where: removed from a candidate location.
const ENGLISH_WHEN =
  /\b(?:(?:the )?day after tomorrow|today|tonight|tomorrow|now|right now|this week|please)\b/gi;
const JAPANESE_WHEN = /^(?:今日|本日|きょう|明日|あした|明後日|あさって|今)+/;

// "weather in Tokyo", "rain at Osaka tomorrow", "forecast for New York": the last such phrase.
const ENGLISH_PLACE_AFTER = /\b(?:in|at|for)\s+([^?!.,;]+)[?!.,;]*\s*$/i;
// "Tokyo weather", "London's forecast": capitalised words right before the keyword.
const ENGLISH_PLACE_BEFORE = /((?:[A-Z][\w-]*\s+)*[A-Z][\w-]*)(?:'s)?\s+(?:weather|forecast)\b/;
// 「大阪の天気」「明日の東京の天気」「東京天気」: the word before the keyword, without particles.
const JAPANESE_PLACE = /([^\s\p{P}のはがもでにを]+)の?(?:天気|天候|予報|気温)/u;

/**
 * Deterministic keyword matching, so the offline model can show real tool calls in the
 * emulator without Gemini. Weather wins over time ("what's the weather today?").
 * @example
 * offlineIntentOf('明日の大阪の天気は？'); // { kind: 'weather', location: '大阪', date: 'tomorrow' }
 */
export function offlineIntentOf(text: string): OfflineIntent | undefined {
  const reminder = reminderIn(text);
  if (reminder) return reminder;
  if (WEATHER_WORDS.test(text)) {
    const date = DAY_AFTER_TOMORROW.test(text)
      ? 'day_after_tomorrow'
      : TOMORROW.test(text)
        ? 'tomorrow'
        : 'today';
    return { kind: 'weather', location: locationIn(text), date };
  }
  if (TIME_WORDS.test(text)) return { kind: 'time', ...timePlaceIn(text) };
  return undefined;
}

/** The place a time question names, with its zone when the city table knows it. */
function timePlaceIn(text: string): { place?: string; timeZone?: string } {
  const named = [
    ENGLISH_TIME_PLACE.exec(text)?.[1]?.replace(ENGLISH_WHEN, ''),
    JAPANESE_TIME_PLACE.exec(text)?.[1]?.replace(JAPANESE_WHEN, ''),
  ]
    .map((candidate) => candidate?.replace(/\s+/g, ' ').trim())
    .find((candidate) => candidate !== undefined && candidate !== '' && candidate.length <= 100);
  // A place the question names is looked up; otherwise a known city anywhere ("London time?").
  if (named === undefined) return timeZoneOfPlace(text) ?? {};
  return timeZoneOfPlace(named) ?? { place: named };
}

function locationIn(text: string): string | undefined {
  const candidates = [
    ENGLISH_PLACE_AFTER.exec(text)?.[1]?.replace(ENGLISH_WHEN, ''),
    ENGLISH_PLACE_BEFORE.exec(text)?.[1],
    JAPANESE_PLACE.exec(text)?.[1]?.replace(JAPANESE_WHEN, ''),
  ];
  return candidates.map((candidate) => candidate?.replace(/\s+/g, ' ').trim()).find(isPlaceName);
}

/** What `get_weather` would accept: its pattern `^[^@:/]+$`, and not a bare keyword. */
function isPlaceName(candidate: string | undefined): candidate is string {
  return (
    candidate !== undefined &&
    candidate !== '' &&
    candidate.length <= 100 &&
    /^[^@:/]+$/.test(candidate) &&
    !/^(?:the|it|how|what|weather|forecast)$/i.test(candidate)
  );
}

function reminderIn(text: string): OfflineIntent | undefined {
  const repeating = repeatingReminderIn(text);
  if (repeating) return repeating;
  const english = ENGLISH_REMINDER.exec(text);
  if (english) return reminder(english[1]!, english[2]!, english[3] || 'your reminder');
  const textFirst = ENGLISH_REMINDER_TEXT_FIRST.exec(text);
  if (textFirst) return reminder(textFirst[2]!, textFirst[3]!, textFirst[1]!);
  const japanese = JAPANESE_REMINDER.exec(text);
  if (japanese) return reminder(japanese[1]!, japanese[2] === '時間' ? 'hours' : 'minutes', japanese[3]!);
  return undefined;
}

function reminder(amount: string, unit: string, text: string): OfflineIntent | undefined {
  const minutes = Number(amount) * (/^h/i.test(unit) ? 60 : 1);
  const cleaned = text.replace(/[.!?。！？]+$/, '').trim();
  if (minutes < 1 || minutes > 525600 || cleaned === '') return undefined;
  return { kind: 'reminder', minutes, text: cutText(cleaned, 500) };
}

type Repeat = 'daily' | 'weekdays' | 'weekly';

/** The repeat a word of the message names ("weekday", 「平日」), if any. */
const REPEAT_OF: Partial<Record<string, Repeat>> = {
  day: 'daily',
  weekday: 'weekdays',
  week: 'weekly',
  毎日: 'daily',
  平日: 'weekdays',
  毎週: 'weekly',
};

function repeatingReminderIn(text: string): OfflineIntent | undefined {
  const japanese = JAPANESE_EVERY.exec(text);
  if (japanese) {
    const minute = japanese[3] ? 30 : Number(japanese[4] ?? 0);
    return repeating(REPEAT_OF[japanese[1]!], Number(japanese[2]), minute, japanese[5]!);
  }
  const every = ENGLISH_EVERY.exec(text);
  const words = /\bremind me\b/i.test(text) ? ENGLISH_REPEATING_REMINDER.exec(text) : null;
  if (!every || !words) return undefined;
  const clock = Number(every[2]);
  const meridiem = every[4]?.toLowerCase();
  const hour = meridiem === 'pm' && clock < 12 ? clock + 12 : meridiem === 'am' && clock === 12 ? 0 : clock;
  // The words to remind of: before "every …" ("remind me to stretch every day at 8") or after it.
  const what = [words[1], words[2]]
    .map((part) => part?.replace(/^(?:to|about)\s+/i, '').trim())
    .find(Boolean);
  return repeating(REPEAT_OF[every[1]!.toLowerCase()], hour, Number(every[3] ?? 0), what ?? '');
}

function repeating(
  repeat: Repeat | undefined,
  hour: number,
  minute: number,
  text: string,
): OfflineIntent | undefined {
  const cleaned = text.replace(/[.!?。！？]+$/, '').trim();
  if (repeat === undefined || hour > 23 || minute > 59 || cleaned === '') return undefined;
  return { kind: 'repeating reminder', repeat, hour, minute, text: cutText(cleaned, 500) };
}
