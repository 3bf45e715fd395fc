import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

describe('configuration: persona file and time zone', () => {
  it('defaults to the built-in persona and Asia/Tokyo', () => {
    expect(loadConfig({})).toMatchObject({ personaFile: undefined, timeZone: 'Asia/Tokyo' });
  });

  it('reads KAIWA_PERSONA_FILE and KAIWA_TIME_ZONE', () => {
    expect(
      loadConfig({ KAIWA_PERSONA_FILE: ' persona/momo.txt ', KAIWA_TIME_ZONE: 'Europe/London' }),
    ).toMatchObject({ personaFile: 'persona/momo.txt', timeZone: 'Europe/London' });
  });

  it.each(['Tokyo', 'Asia/Nowhere', 'UTC+9'])(
    'rejects KAIWA_TIME_ZONE=%s with one line naming it',
    (zone) => {
      const error = (() => {
        try {
          loadConfig({ KAIWA_TIME_ZONE: zone });
        } catch (caught) {
          return caught;
        }
      })();

      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toBe(
        `invalid configuration: KAIWA_TIME_ZONE must be an IANA time zone such as "Asia/Tokyo" (got "${zone}")`,
      );
    },
  );
});
