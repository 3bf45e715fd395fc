import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/domain/index.js';
import { createLogger } from '../../src/logging/index.js';
import { ToolRegistry, createWeatherTool, type WeatherToolOptions } from '../../src/tools/index.js';
import { serveTokyo, startFakeWeatherServer, tokyoJ1Text } from '../support/fake-weather-server.js';

let server: Awaited<ReturnType<typeof startFakeWeatherServer>>;
beforeAll(async () => {
  server = await startFakeWeatherServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.rawPaths.length = 0;
  server.respondWith(serveTokyo);
});

/** Runs get_weather through a registry, so arguments and the response are schema-checked. */
async function getWeather(args: JsonObject, options: Partial<WeatherToolOptions> = {}) {
  const logLines: string[] = [];
  const registry = new ToolRegistry({
    logger: createLogger({ level: 'debug', write: (line) => logLines.push(line) }),
  });
  registry.register(createWeatherTool({ baseUrl: server.baseUrl, ...options }));
  const outcome = await registry.execute(
    { id: 'call-1', name: 'get_weather', args },
    {
      source: { kind: 'user', id: 'U1' },
      turnId: 'turn-1',
      signal: new AbortController().signal,
      clock: { now: () => 0 },
    },
  );
  return { outcome, logLines };
}

describe('get_weather against a server speaking wttr.in j1', () => {
  it("reports today's weather compactly, with the current conditions", async () => {
    const { outcome } = await getWeather({ location: 'Tokyo' });

    expect(outcome.isError).toBe(false);
    expect(outcome.response).toEqual({
      location: 'Tokyo',
      area: 'Tokyo, Japan',
      day: 'today',
      date: '2025-03-15',
      condition: 'Partly Cloudy',
      minTempC: 8,
      maxTempC: 16,
      chanceOfRainPercent: 72,
      current: { tempC: 14, condition: 'Partly cloudy' },
    });
    expect(server.rawPaths).toEqual(['/Tokyo?format=j1']);
  });

  it("gives tomorrow's forecast in detail, without current conditions", async () => {
    const { outcome } = await getWeather({ location: 'Tokyo', date: 'tomorrow', detail: 'detailed' });

    expect(outcome.response).toEqual({
      location: 'Tokyo',
      area: 'Tokyo, Japan',
      day: 'tomorrow',
      date: '2025-03-16',
      condition: 'Light drizzle',
      minTempC: 9,
      maxTempC: 13,
      chanceOfRainPercent: 91,
      precipitationMm: 7,
      maxWindKmph: 16,
      uvIndex: 2,
      sunrise: '05:47 AM',
      sunset: '05:46 PM',
    });
  });

  it('adds the 3-hourly forecast at full detail, and the current details for today', async () => {
    const later = await getWeather({ location: 'Tokyo', date: 'day_after_tomorrow', detail: 'full' });
    const today = await getWeather({ location: 'Tokyo', detail: 'full' });

    const hourly = later.outcome.response.hourly as JsonObject[];
    expect(later.outcome.response).toMatchObject({ date: '2025-03-17', condition: 'Sunny', maxTempC: 18 });
    expect(hourly.map((hour) => hour.time)).toEqual([
      '00:00',
      '03:00',
      '06:00',
      '09:00',
      '12:00',
      '15:00',
      '18:00',
      '21:00',
    ]);
    expect(hourly[4]).toEqual({
      time: '12:00',
      tempC: 17,
      condition: 'Sunny',
      chanceOfRainPercent: 0,
      windKmph: 13,
    });
    expect(today.outcome.response.current).toEqual({
      tempC: 14,
      condition: 'Partly cloudy',
      feelsLikeC: 13,
      humidityPercent: 58,
      windKmph: 13,
      windDirection: 'SSE',
      observedAt: '2025-03-15 02:40 PM',
    });
  });

  it('keeps a path prefix of the base URL', async () => {
    await getWeather({ location: 'Tokyo' }, { baseUrl: `${server.baseUrl}/weather/` });

    expect(server.rawPaths).toEqual(['/weather/Tokyo?format=j1']);
  });
});

describe('get_weather: the location in the URL', () => {
  it.each([
    ['a Japanese name', '東京', '/%E6%9D%B1%E4%BA%AC?format=j1'],
    ['a space', 'New York', '/New%20York?format=j1'],
    ['a question mark (would start a query)', 'Tokyo?format=3', '/Tokyo%3Fformat%3D3?format=j1'],
    ['a hash (would start a fragment)', 'Tokyo#x', '/Tokyo%23x?format=j1'],
    ['an ampersand and equals sign', 'a&format=3', '/a%26format%3D3?format=j1'],
    ['a backslash (a path separator to URL parsers)', '..\\admin', '/..%5Cadmin?format=j1'],
    ['dots inside a name', 'St. John..s', '/St.%20John..s?format=j1'],
    ['a percent sign (no double decoding)', '%2e%2e', '/%252e%252e?format=j1'],
  ])('encodes %s', async (_case, location, rawPath) => {
    const { outcome } = await getWeather({ location });

    expect(outcome.isError).toBe(false);
    expect(server.rawPaths).toEqual([rawPath]);
  });

  it.each([
    ['..', 'the parent path'],
    ['.', 'the same path'],
    [' .. ', 'the parent path, padded'],
  ])('refuses %j (%s) without a request, even under a path prefix', async (location) => {
    const { outcome } = await getWeather({ location }, { baseUrl: `${server.baseUrl}/weather` });

    expect(outcome).toMatchObject({
      isError: true,
      response: { error: expect.stringContaining('place name') as string },
    });
    expect(server.rawPaths).toEqual([]);
  });

  it('refuses a lone UTF-16 surrogate, which cannot be encoded', async () => {
    const { outcome } = await getWeather({ location: 'Tokyo\uD800' });

    expect(outcome.response).toEqual({ error: 'location must be a place name, such as "Tokyo" or "東京"' });
    expect(server.rawPaths).toEqual([]);
  });

  it.each([
    ['an @ (a wttr.in domain lookup)', '@example.com'],
    ['a colon', 'http:x'],
    ['a slash', 'Tokyo/../admin'],
    ['an empty name', ''],
  ])('rejects %s as invalid arguments, before any request', async (_case, location) => {
    const { outcome } = await getWeather({ location });

    expect(outcome.isError).toBe(true);
    expect(outcome.response.error).toContain('invalid arguments');
    expect(server.rawPaths).toEqual([]);
  });

  it.each([
    ['an unknown day', { location: 'Tokyo', date: 'next_week' }],
    ['an unknown detail level', { location: 'Tokyo', detail: 'everything' }],
  ])('rejects %s', async (_case, args) => {
    const { outcome } = await getWeather(args);

    expect(outcome.response.error).toContain('must be equal to one of the allowed values');
  });
});

describe('get_weather: failures reach the model as short errors', () => {
  const oversize = '{"pad":"' + 'x'.repeat(1024 * 1024) + '"}';
  it.each<[string, Parameters<typeof server.respondWith>[0], string]>([
    [
      'a 404 (unknown location)',
      (_request, response) => response.writeHead(404).end('Unknown location; please try ~Tokyo'),
      'no weather found for "Tokyo"',
    ],
    ['a 500', (_request, response) => response.writeHead(500).end('oops'), 'answered with HTTP 500'],
    ['a 429', (_request, response) => response.writeHead(429).end('slow down'), 'busy (too many requests)'],
    [
      'invalid JSON',
      (_request, response) => response.writeHead(200).end('<html>Sorry</html>'),
      'could not be read',
    ],
    [
      'JSON that is not j1',
      (_request, response) => response.writeHead(200).end('{"data":[]}'),
      'could not be read',
    ],
    [
      'j1 with a number that is not one',
      (_request, response) =>
        response.writeHead(200).end(tokyoJ1Text.replace('"mintempC": "8"', '"mintempC": "n/a"')),
      'could not be read',
    ],
    [
      'a body over 1 MiB with its Content-Length',
      (_request, response) =>
        response.writeHead(200, { 'content-length': Buffer.byteLength(oversize) }).end(oversize),
      'too large',
    ],
    [
      'a chunked body over 1 MiB',
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        for (let offset = 0; offset < oversize.length; offset += 64 * 1024) {
          response.write(oversize.slice(offset, offset + 64 * 1024));
        }
        response.end();
      },
      'too large',
    ],
  ])('%s', async (_case, handler, expected) => {
    server.respondWith(handler);

    const { outcome, logLines } = await getWeather({ location: 'Tokyo' });

    expect(outcome).toEqual({
      callId: 'call-1',
      name: 'get_weather',
      isError: true,
      response: { error: expect.stringContaining(expected) as string },
    });
    // Logged for the operator, without the user's words.
    expect(logLines.some((line) => line.includes('weather request failed'))).toBe(true);
    expect(logLines.join('\n')).not.toContain('Tokyo');
  });

  it('reads a j1 body of a realistic size (under the cap) in full', async () => {
    // wttr.in's real answers are around 50 KB; the fixture plus padding stays under 1 MiB.
    const padded = tokyoJ1Text.replace('{', `{"padding":"${'x'.repeat(900 * 1024)}",`);
    server.respondWith((_request, response) => response.writeHead(200).end(padded));

    const { outcome } = await getWeather({ location: 'Tokyo' });

    expect(outcome.response).toMatchObject({ date: '2025-03-15' });
  });

  it('gives up after its timeout when the service does not answer', async () => {
    server.respondWith(() => {}); // never answers
    const started = performance.now();

    const { outcome } = await getWeather({ location: 'Tokyo' }, { timeoutMs: 150 });

    expect(outcome.response).toEqual({ error: 'the weather service did not answer within 150 ms' });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('times out on a body that stalls after the headers', async () => {
    server.respondWith((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"current_condition":');
    });

    const { outcome } = await getWeather({ location: 'Tokyo' }, { timeoutMs: 150 });

    expect(outcome.response).toEqual({ error: 'the weather service did not answer within 150 ms' });
  });

  it('has a 3 s timeout by default, with the registry as a later backstop', () => {
    expect(createWeatherTool({ baseUrl: server.baseUrl }).timeoutMs).toBe(3500);
  });

  it('says so when the service cannot be reached', async () => {
    const gone = await startFakeWeatherServer();
    await gone.close();

    const { outcome } = await getWeather({ location: 'Tokyo' }, { baseUrl: gone.baseUrl });

    expect(outcome.response).toEqual({ error: 'the weather service could not be reached' });
  });
});
