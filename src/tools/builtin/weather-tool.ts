import { defineTool } from '../define-tool.js';
import type { ToolContext, ToolFailure } from '../tool.js';
import { readBodyWithLimit } from './bounded-body.js';
import { ResponseTooLargeError } from './response-too-large-error.js';
import { UnexpectedForecastError } from './unexpected-forecast-error.js';
import { FORECAST_DAYS, FORECAST_DETAILS, forecastFromJ1, WEATHER_REPORT_SCHEMA } from './wttr-forecast.js';

export const WEATHER_TOOL_NAME = 'get_weather';

export interface WeatherToolOptions {
  /** wttr.in or a compatible server (`WEATHER_BASE_URL`); a path prefix is kept. */
  readonly baseUrl: string;
  /** Injected in tests; the global `fetch` otherwise. */
  readonly fetch?: typeof fetch;
  /** How long the weather service may take, body included (default 3000 ms, as for every tool). */
  readonly timeoutMs?: number;
  /** Larger responses are refused (default 1 MiB; a real j1 answer is about 50 KB). */
  readonly maxResponseBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 3000;
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
// The registry's own timeout is a backstop: ours fires first and says what went wrong.
const REGISTRY_TIMEOUT_MARGIN_MS = 500;

/**
 * `get_weather(location, date?, detail?)` (docs/design-notes.md): today's, tomorrow's or the next day's
 * weather from wttr.in's `?format=j1`, reduced to a compact report.
 *
 * The location goes into the URL path through `encodeURIComponent`, since the schema's
 * pattern (`^[^@:/]+$`) lets `?`, `#` and `\` through; a location of dots alone is refused,
 * because URL parsing would read `..` as "the parent path", even percent-encoded.
 * @example
 * registry.register(createWeatherTool({ baseUrl: config.weatherBaseUrl }));
 */
export function createWeatherTool(options: WeatherToolOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const fetchWeather = options.fetch ?? fetch;

  return defineTool({
    name: WEATHER_TOOL_NAME,
    description:
      'Get the weather for a place from wttr.in: conditions, temperatures and chance of rain for today, tomorrow or the day after.',
    category: 'information',
    optional: true,
    sideEffects: false,
    usageHint:
      'When the user asks about the weather, temperature, rain, or what to wear or bring for a place in the next three days. Ask for the place if it is not clear.',
    // Three enums and a place pattern: the model gets the full detail whenever it is offered.
    complex: true,
    keywords: [
      ...['weather', 'forecast', 'temperature', 'rain', 'snow', 'sunny', 'cloudy', 'umbrella', 'humid'],
      ...['typhoon', 'storm', 'degrees', 'what to wear'],
      ...['天気', '天候', '予報', '気温', '雨', '雪', '晴れ', '曇', '傘', '台風', '暑', '寒', '降水', '湿度'],
    ],
    examples: [
      { description: 'Weather in Tokyo now', args: { location: 'Tokyo' } },
      { description: '「明日の大阪の天気は？」', args: { location: '大阪', date: 'tomorrow' } },
      {
        description: 'Planning a day out in Paris',
        args: { location: 'Paris', date: 'day_after_tomorrow', detail: 'full' },
      },
    ],
    parameters: {
      type: 'object',
      properties: {
        location: {
          type: 'string',
          minLength: 1,
          maxLength: 100,
          pattern: '^[^@:/]+$',
          description: 'A city or area name in any language, e.g. "Tokyo", "東京", "New York"',
        },
        date: {
          type: 'string',
          enum: [...FORECAST_DAYS],
          default: 'today',
          description: 'Which day; the forecast covers today and the next two days',
        },
        detail: {
          type: 'string',
          enum: [...FORECAST_DETAILS],
          default: 'basic',
          description:
            'basic: conditions, temperatures, rain chance; detailed: plus wind, UV, sunrise and sunset; full: plus the 3-hourly forecast',
        },
      },
      required: ['location'],
      additionalProperties: false,
    },
    response: WEATHER_REPORT_SCHEMA,
    timeoutMs: timeoutMs + REGISTRY_TIMEOUT_MARGIN_MS,
  }).implement(async (args, context) => {
    const location = args.location.trim();
    const day = args.date ?? 'today';
    const detail = args.detail ?? 'basic';
    const url = weatherUrl(baseUrl, location);
    if (url === undefined) return failure('location must be a place name, such as "Tokyo" or "東京"');

    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]);
    let payload: unknown;
    try {
      const response = await fetchWeather(url, { signal, headers: { accept: 'application/json' } });
      if (!response.ok) {
        await response.body?.cancel();
        return failed(context, { status: response.status }, errorForStatus(response.status, location));
      }
      payload = JSON.parse(await readBodyWithLimit(response, maxResponseBytes));
    } catch (error) {
      return failed(context, { cause: error }, errorForFailure(error, signal, timeoutMs));
    }

    try {
      return { forLLM: forecastFromJ1(payload, { location, day, detail }) };
    } catch (error) {
      if (!UnexpectedForecastError.isInstance(error)) throw error;
      return failed(
        context,
        { field: error.field },
        'the weather service sent a response that could not be read',
      );
    }
  });
}

/** `undefined` for a location that cannot be one path segment of a URL. */
function weatherUrl(baseUrl: string, location: string): string | undefined {
  if (/^\.*$/.test(location)) return undefined; // "", "." and ".." are path navigation, not places
  try {
    return `${baseUrl}/${encodeURIComponent(location)}?format=j1`;
  } catch {
    return undefined; // a lone UTF-16 surrogate cannot be encoded
  }
}

function errorForStatus(status: number, location: string): string {
  if (status === 404) return `no weather found for "${location}"; try the name of a nearby city`;
  if (status === 429) return 'the weather service is busy (too many requests); try again later';
  return `the weather service answered with HTTP ${status}`;
}

function errorForFailure(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (ResponseTooLargeError.isInstance(error))
    return 'the weather service sent a response that was too large';
  if (error instanceof SyntaxError) return 'the weather service sent a response that could not be read';
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    return reason instanceof Error && reason.name === 'TimeoutError'
      ? `the weather service did not answer within ${timeoutMs} ms`
      : 'the weather request was cancelled';
  }
  return 'the weather service could not be reached';
}

function failure(error: string): ToolFailure {
  return { forLLM: { error }, isError: true };
}

/** Logs what happened, without the location (the user's words), and tells the model why. */
function failed(context: ToolContext, details: Record<string, unknown>, error: string): ToolFailure {
  context.logger.warn('weather request failed', details);
  return failure(error);
}
