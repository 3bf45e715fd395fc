import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply, callTools } from '../../src/model/index.js';
import { startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';

describe('logs', () => {
  it('never contain message text at info or above, through a whole turn with a tool', async () => {
    const secret = 'my-bank-pin-is-4711';
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', write: (line) => lines.push(line) });
    const model = new ScriptedModel([
      callTools(['get_current_time', { timeZone: 'Asia/Tokyo' }], ['unknown_tool', { note: secret }]),
      callReply(`I will not repeat ${secret}`),
    ]);
    const running = await startKaiwaWithFakeLine({ model, overrides: { logger } });
    try {
      const userId = 'U' + 'd'.repeat(32);
      await running.post(
        JSON.stringify({
          destination: running.line.emulator.botUserId,
          events: [textEvent(running.line, { type: 'user', userId }, secret)],
        }),
      );
      await running.kaiwa.host.whenSettled();

      expect(running.line.requestsTo('/v2/bot/message/reply')).toHaveLength(1);
      expect(lines.length).toBeGreaterThan(3);
      expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    } finally {
      await running.close();
    }
  });
});
