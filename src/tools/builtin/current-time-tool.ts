import { isValidTimeZone, utcOffsetOf, type ObjectSchema } from '../../domain/index.js';
import { defineTool } from '../define-tool.js';

export const CURRENT_TIME_TOOL_NAME = 'get_current_time';

export interface CurrentTimeToolOptions {
  /** The IANA zone used when the model names none (`KAIWA_TIME_ZONE`, default Asia/Tokyo). */
  readonly defaultTimeZone: string;
}

const CALENDAR_DAY_SCHEMA = {
  type: 'object',
  properties: {
    date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    weekday: { type: 'string' },
  },
  required: ['date', 'weekday'],
  additionalProperties: false,
} as const satisfies ObjectSchema;

/**
 * `get_current_time(time_zone?)`: the date, time and weekday in an IANA zone, read from the
 * tool context's clock (so tests and restored turns are deterministic). It also names
 * yesterday and tomorrow, because models are unreliable at calendar arithmetic.
 * An unknown zone is an error result the model can correct, not a thrown error.
 * @example
 * registry.register(createCurrentTimeTool({ defaultTimeZone: config.timeZone }));
 */
export function createCurrentTimeTool(options: CurrentTimeToolOptions) {
  if (!isValidTimeZone(options.defaultTimeZone)) {
    throw new RangeError(`unknown default time zone "${options.defaultTimeZone}"`);
  }
  return defineTool({
    name: CURRENT_TIME_TOOL_NAME,
    description: 'Get the current date, time and day of the week in a time zone.',
    category: 'information',
    optional: true,
    sideEffects: false,
    usageHint:
      'When the answer depends on the current time or date: "what time is it", "what day is it", or relative dates such as "tomorrow" or "next Monday".',
    keywords: [
      ...['time', 'date', 'today', 'tomorrow', 'yesterday', 'weekday', 'weekend', 'next week', 'clock'],
      ...['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      ...[
        '何時',
        '時間',
        '時刻',
        '日付',
        '何日',
        '曜日',
        '今日',
        '明日',
        '昨日',
        '週末',
        '来週',
        '今週',
        'いつ',
      ],
    ],
    examples: [
      { description: 'What day is it today?', args: {} },
      { description: 'The time in London', args: { time_zone: 'Europe/London' } },
    ],
    parameters: {
      type: 'object',
      properties: {
        time_zone: {
          type: 'string',
          minLength: 1,
          maxLength: 64,
          default: options.defaultTimeZone,
          description: 'An IANA time zone such as "Asia/Tokyo" or "America/New_York"',
        },
      },
      additionalProperties: false,
    },
    response: {
      type: 'object',
      properties: {
        timeZone: { type: 'string' },
        date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        time: { type: 'string', pattern: '^\\d{2}:\\d{2}$' },
        weekday: { type: 'string' },
        utcOffset: { type: 'string', pattern: '^[+-]\\d{2}:\\d{2}$' },
        localDateTime: { type: 'string' },
        yesterday: CALENDAR_DAY_SCHEMA,
        tomorrow: CALENDAR_DAY_SCHEMA,
      },
      required: [
        'timeZone',
        'date',
        'time',
        'weekday',
        'utcOffset',
        'localDateTime',
        'yesterday',
        'tomorrow',
      ],
      additionalProperties: false,
    },
  }).implement((args, context) => {
    const requested = args.time_zone?.trim() || options.defaultTimeZone;
    if (!isValidTimeZone(requested)) {
      return Promise.resolve({
        forLLM: { error: `unknown time zone "${requested}"; use an IANA name such as "Asia/Tokyo"` },
        isError: true,
      });
    }
    return Promise.resolve({ forLLM: describeInstant(context.clock.now(), requested) });
  });
}

function describeInstant(epochMs: number, timeZone: string) {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    weekday: 'long',
    timeZoneName: 'longOffset',
  });
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of format.formatToParts(new Date(epochMs))) parts[part.type] = part.value;
  const { year = '', month = '', day = '', hour = '', minute = '', second = '' } = parts;
  const utcOffset = utcOffsetOf(parts.timeZoneName);
  const date = `${year}-${month}-${day}`;
  // ICU fixes the case ("europe/london") but also swaps in legacy names ("Asia/Calcutta"
  // for "Asia/Kolkata"): take its spelling only when it is the same name.
  const resolved = format.resolvedOptions().timeZone;
  return {
    timeZone: resolved.toLowerCase() === timeZone.toLowerCase() ? resolved : timeZone,
    date,
    time: `${hour}:${minute}`,
    weekday: parts.weekday ?? '',
    utcOffset,
    localDateTime: `${date}T${hour}:${minute}:${second}${utcOffset}`,
    yesterday: calendarDay(Number(year), Number(month), Number(day) - 1),
    tomorrow: calendarDay(Number(year), Number(month), Number(day) + 1),
  };
}

/** Calendar arithmetic in UTC, where days are always 24 hours (no DST in the way). */
function calendarDay(year: number, month: number, day: number) {
  const date = new Date(Date.UTC(year, month - 1, day));
  return {
    date: date.toISOString().slice(0, 10),
    weekday: date.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' }),
  };
}
