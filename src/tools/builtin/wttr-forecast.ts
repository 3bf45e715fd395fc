import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ObjectSchema,
  type SchemaValue,
} from '../../domain/index.js';
import { UnexpectedForecastError } from './unexpected-forecast-error.js';

/** The days wttr.in's j1 format covers, in the order of its `weather` array. */
export const FORECAST_DAYS = ['today', 'tomorrow', 'day_after_tomorrow'] as const;
export type ForecastDay = (typeof FORECAST_DAYS)[number];

/** How much the report says: `basic` fits a chat answer; `full` adds the 3-hourly forecast. */
export const FORECAST_DETAILS = ['basic', 'detailed', 'full'] as const;
export type ForecastDetail = (typeof FORECAST_DETAILS)[number];

/** What the model gets back: a few dozen numbers and words instead of wttr.in's ~30 KB. */
export const WEATHER_REPORT_SCHEMA = {
  type: 'object',
  properties: {
    location: { type: 'string' },
    area: { type: 'string' },
    day: { type: 'string', enum: [...FORECAST_DAYS] },
    date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    condition: { type: 'string' },
    minTempC: { type: 'number' },
    maxTempC: { type: 'number' },
    chanceOfRainPercent: { type: 'number', minimum: 0, maximum: 100 },
    precipitationMm: { type: 'number', minimum: 0 },
    maxWindKmph: { type: 'number', minimum: 0 },
    uvIndex: { type: 'number', minimum: 0 },
    sunrise: { type: 'string' },
    sunset: { type: 'string' },
    current: {
      type: 'object',
      properties: {
        tempC: { type: 'number' },
        condition: { type: 'string' },
        feelsLikeC: { type: 'number' },
        humidityPercent: { type: 'number', minimum: 0, maximum: 100 },
        windKmph: { type: 'number', minimum: 0 },
        windDirection: { type: 'string' },
        observedAt: { type: 'string' },
      },
      required: ['tempC', 'condition'],
      additionalProperties: false,
    },
    hourly: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          time: { type: 'string', pattern: '^\\d{2}:\\d{2}$' },
          tempC: { type: 'number' },
          condition: { type: 'string' },
          chanceOfRainPercent: { type: 'number', minimum: 0, maximum: 100 },
          windKmph: { type: 'number', minimum: 0 },
        },
        required: ['time', 'tempC', 'condition', 'chanceOfRainPercent', 'windKmph'],
        additionalProperties: false,
      },
    },
  },
  required: ['location', 'day', 'date', 'condition', 'minTempC', 'maxTempC', 'chanceOfRainPercent'],
  additionalProperties: false,
} as const satisfies ObjectSchema;

/** The report as a type, read from its schema. */
export type WeatherReport = SchemaValue<typeof WEATHER_REPORT_SCHEMA>;
type CurrentConditions = NonNullable<WeatherReport['current']>;
type HourlyForecast = NonNullable<WeatherReport['hourly']>[number];

/**
 * Maps a wttr.in `?format=j1` payload to the compact report for one day.
 * `current` is only given for today: wttr.in observes the present, not the future.
 * Throws {@link UnexpectedForecastError} when the payload is not shaped like j1.
 */
export function forecastFromJ1(
  payload: unknown,
  request: { location: string; day: ForecastDay; detail: ForecastDetail },
): WeatherReport {
  const root = objectAt(payload, 'payload');
  const days = arrayAt(root.weather, 'weather');
  const dayIndex = FORECAST_DAYS.indexOf(request.day);
  const day = objectAt(days[dayIndex], `weather[${dayIndex}]`);
  const hours = arrayAt(day.hourly, 'hourly').map((hour, index) => objectAt(hour, `hourly[${index}]`));
  if (hours.length === 0) throw new UnexpectedForecastError('hourly');
  // wttr.in gives 3-hourly blocks; the one at noon stands for the day.
  const midday = hours.find((hour) => hour.time === '1200') ?? hours[Math.floor(hours.length / 2)]!;
  const detailed = request.detail !== 'basic';

  return {
    location: request.location,
    ...areaOf(root),
    day: request.day,
    date: textAt(day, 'date'),
    condition: conditionOf(midday),
    minTempC: numberAt(day, 'mintempC'),
    maxTempC: numberAt(day, 'maxtempC'),
    chanceOfRainPercent: Math.max(...hours.map((hour) => numberAt(hour, 'chanceofrain'))),
    ...(detailed && dayDetailsOf(day, hours)),
    ...(request.day === 'today' && { current: currentOf(root, detailed) }),
    ...(request.detail === 'full' && { hourly: hours.map(hourOf) }),
  };
}

function dayDetailsOf(day: JsonObject, hours: readonly JsonObject[]) {
  const astronomy = objectAt(arrayAt(day.astronomy, 'astronomy')[0], 'astronomy[0]');
  return {
    precipitationMm: round(hours.reduce((total, hour) => total + numberAt(hour, 'precipMM'), 0)),
    maxWindKmph: Math.max(...hours.map((hour) => numberAt(hour, 'windspeedKmph'))),
    uvIndex: numberAt(day, 'uvIndex'),
    sunrise: textAt(astronomy, 'sunrise'),
    sunset: textAt(astronomy, 'sunset'),
  };
}

function currentOf(root: JsonObject, detailed: boolean): CurrentConditions {
  const now = objectAt(arrayAt(root.current_condition, 'current_condition')[0], 'current_condition[0]');
  const current = { tempC: numberAt(now, 'temp_C'), condition: conditionOf(now) };
  if (!detailed) return current;
  return {
    ...current,
    feelsLikeC: numberAt(now, 'FeelsLikeC'),
    humidityPercent: numberAt(now, 'humidity'),
    windKmph: numberAt(now, 'windspeedKmph'),
    windDirection: textAt(now, 'winddir16Point'),
    ...(typeof now.localObsDateTime === 'string' && { observedAt: now.localObsDateTime }),
  };
}

function hourOf(hour: JsonObject): HourlyForecast {
  const time = textAt(hour, 'time').padStart(4, '0');
  return {
    time: `${time.slice(0, 2)}:${time.slice(2, 4)}`,
    tempC: numberAt(hour, 'tempC'),
    condition: conditionOf(hour),
    chanceOfRainPercent: numberAt(hour, 'chanceofrain'),
    windKmph: numberAt(hour, 'windspeedKmph'),
  };
}

/** "Tokyo, Japan" as wttr.in resolved the query, so the model can spot a wrong guess. */
function areaOf(root: JsonObject): { area?: string } {
  const nearest = Array.isArray(root.nearest_area) ? root.nearest_area[0] : undefined;
  if (!isJsonObject(nearest)) return {};
  const parts = [firstValue(nearest.areaName), firstValue(nearest.region), firstValue(nearest.country)];
  const unique = parts.filter((part, index): part is string => !!part && parts.indexOf(part) === index);
  return unique.length > 0 ? { area: unique.join(', ') } : {};
}

function conditionOf(entry: JsonObject): string {
  const description = firstValue(entry.weatherDesc);
  if (description === undefined) throw new UnexpectedForecastError('weatherDesc');
  return description;
}

/** j1 wraps names in `[{ "value": "…" }]` and pads some with spaces. */
function firstValue(value: JsonValue | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : undefined;
  const text = isJsonObject(first) && typeof first.value === 'string' ? first.value.trim() : '';
  return text === '' ? undefined : text;
}

/** j1 sends numbers as strings ("14"); anything that is not a finite number is refused. */
function numberAt(entry: JsonObject, field: string): number {
  const raw = entry[field];
  const value =
    typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : typeof raw === 'number' ? raw : NaN;
  if (!Number.isFinite(value)) throw new UnexpectedForecastError(field);
  return value;
}

function textAt(entry: JsonObject, field: string): string {
  const value = entry[field];
  if (typeof value !== 'string' || value.trim() === '') throw new UnexpectedForecastError(field);
  return value.trim();
}

function objectAt(value: unknown, field: string): JsonObject {
  if (!isJsonObject(value)) throw new UnexpectedForecastError(field);
  return value;
}

function arrayAt(value: JsonValue | undefined, field: string): JsonValue[] {
  if (!Array.isArray(value)) throw new UnexpectedForecastError(field);
  return value;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
