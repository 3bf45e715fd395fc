import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/domain/index.js';
import { ToolRegistry, createCurrentTimeTool } from '../../src/tools/index.js';

/** Runs get_current_time through a registry (schemas checked) at a fixed instant. */
async function currentTime(args: JsonObject, at: string, defaultTimeZone = 'Asia/Tokyo') {
  const registry = new ToolRegistry().register(createCurrentTimeTool({ defaultTimeZone }));
  return registry.execute(
    { id: 'call-1', name: 'get_current_time', args },
    {
      source: { kind: 'user', id: 'U1' },
      turnId: 'turn-1',
      signal: new AbortController().signal,
      clock: { now: () => Date.parse(at) },
    },
  );
}

describe('get_current_time', () => {
  it('tells the time in the default zone from the context clock, with yesterday and tomorrow', async () => {
    const outcome = await currentTime({}, '2025-03-15T05:30:07Z');

    expect(outcome.isError).toBe(false);
    expect(outcome.response).toEqual({
      timeZone: 'Asia/Tokyo',
      date: '2025-03-15',
      time: '14:30',
      weekday: 'Saturday',
      utcOffset: '+09:00',
      localDateTime: '2025-03-15T14:30:07+09:00',
      yesterday: { date: '2025-03-14', weekday: 'Friday' },
      tomorrow: { date: '2025-03-16', weekday: 'Sunday' },
    });
  });

  it.each([
    ['UTC', '2025-03-15T05:30:00Z', { date: '2025-03-15', time: '05:30', utcOffset: '+00:00' }],
    ['Asia/Kolkata', '2025-03-15T05:30:00Z', { date: '2025-03-15', time: '11:00', utcOffset: '+05:30' }],
    // New York is on daylight saving time in July, standard time in January.
    ['America/New_York', '2025-07-01T03:00:00Z', { date: '2025-06-30', time: '23:00', utcOffset: '-04:00' }],
    ['America/New_York', '2025-01-01T03:00:00Z', { date: '2024-12-31', time: '22:00', utcOffset: '-05:00' }],
  ])('in %s at %s', async (timeZone, at, expected) => {
    const outcome = await currentTime({ time_zone: timeZone }, at);

    expect(outcome.response).toMatchObject({ timeZone, ...expected });
  });

  it('crosses month and year ends for yesterday and tomorrow, and midnight is 00', async () => {
    const newYear = await currentTime({}, '2024-12-31T15:00:00Z');
    const leapDay = await currentTime({ time_zone: 'UTC' }, '2024-02-29T12:00:00Z');

    expect(newYear.response).toMatchObject({
      date: '2025-01-01',
      time: '00:00',
      weekday: 'Wednesday',
      yesterday: { date: '2024-12-31', weekday: 'Tuesday' },
      tomorrow: { date: '2025-01-02', weekday: 'Thursday' },
    });
    expect(leapDay.response).toMatchObject({
      yesterday: { date: '2024-02-28' },
      tomorrow: { date: '2024-03-01', weekday: 'Friday' },
    });
  });

  it('names yesterday and tomorrow by the calendar on a day of a DST change', async () => {
    // 2025-11-02 in New York has 25 hours: 00:30 + 24 h is still the 2nd.
    const outcome = await currentTime({ time_zone: 'America/New_York' }, '2025-11-02T04:30:00Z');

    expect(outcome.response).toMatchObject({
      date: '2025-11-02',
      time: '00:30',
      tomorrow: { date: '2025-11-03', weekday: 'Monday' },
    });
  });

  it('accepts a zone in another case and answers with its canonical name', async () => {
    const outcome = await currentTime({ time_zone: 'europe/london' }, '2025-03-15T05:30:00Z');

    expect(outcome.response).toMatchObject({ timeZone: 'Europe/London', time: '05:30' });
  });

  it('uses the configured default zone', async () => {
    const outcome = await currentTime({}, '2025-03-15T05:30:00Z', 'Europe/Paris');

    expect(outcome.response).toMatchObject({ timeZone: 'Europe/Paris', time: '06:30', utcOffset: '+01:00' });
  });

  it.each(['Mars/Olympus_Mons', 'Tokyo', 'JST+9'])(
    'answers an unknown zone (%s) with an error the model can act on',
    async (timeZone) => {
      const outcome = await currentTime({ time_zone: timeZone }, '2025-03-15T05:30:00Z');

      expect(outcome).toMatchObject({
        isError: true,
        response: { error: `unknown time zone "${timeZone}"; use an IANA name such as "Asia/Tokyo"` },
      });
    },
  );

  it('refuses an unknown default zone when it is created', () => {
    expect(() => createCurrentTimeTool({ defaultTimeZone: 'Asia/Nowhere' })).toThrow(
      'unknown default time zone "Asia/Nowhere"',
    );
  });
});
