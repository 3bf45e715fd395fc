import { describe, expect, it } from 'vitest';
import { turnOutcome } from '../../src/inspect/turn-outcome.js';

const summary = (fields: Record<string, unknown>) => ({
  id: 'turn-1',
  modelCalls: 1,
  usage: { promptTokens: 0, outputTokens: 0, cachedTokens: 0 },
  startedAt: 1_700_000_000_000,
  ...fields,
});

describe('the outcome of a last turn, as the inspector lists it', () => {
  it('is answered when the reply reached the user', () => {
    expect(turnOutcome(summary({ stopReason: 'final-tool', replied: true, deliveries: 1 }))).toEqual({
      turnId: 'turn-1',
      startedAt: 1_700_000_000_000,
      stopReason: 'final-tool',
      answered: true,
    });
    // An answer sent before the model-call limit stopped the turn is still an answer.
    expect(
      turnOutcome(summary({ stopReason: 'model-call-limit', replied: true, deliveries: 1 })),
    ).toMatchObject({
      answered: true,
    });
  });

  it('says why a message got no answer: skip, limit, failure or quarantine, and whether a notice went out', () => {
    const why = (stopReason: string, deliveries: number) =>
      turnOutcome(summary({ stopReason, replied: false, deliveries }));

    expect(why('final-tool', 0)).toMatchObject({ answered: false, noAnswer: 'skip', noticeSent: false });
    expect(why('limit-reached', 1)).toMatchObject({ noAnswer: 'limit', noticeSent: true });
    expect(why('inbox-full', 1)).toMatchObject({ noAnswer: 'limit', noticeSent: true });
    expect(why('model-call-limit', 0)).toMatchObject({ noAnswer: 'limit', noticeSent: false });
    expect(why('model-failed', 1)).toMatchObject({ noAnswer: 'failure', noticeSent: true });
    expect(why('model-failed', 0)).toMatchObject({ noAnswer: 'failure', noticeSent: false });
    expect(why('no-function-calls', 0)).toMatchObject({ noAnswer: 'failure' });
    expect(why('abandoned', 0)).toMatchObject({ noAnswer: 'quarantine' });
    expect(why('quarantined', 1)).toMatchObject({ noAnswer: 'quarantine', noticeSent: true });
    // A stop reason a newer kaiwa wrote is not taken for an answer.
    expect(why('something-new', 0)).toMatchObject({ answered: false, noAnswer: 'failure' });
  });

  it("counts a tool's own message as an answer, but not a notice", () => {
    // A tool sent its text, then the model ended with text: the user got the tool's message.
    expect(
      turnOutcome(
        summary({ stopReason: 'no-function-calls', replied: false, deliveries: 1, noticeSent: false }),
      ),
    ).toMatchObject({ answered: true });
    // The apology alone, or after a refused reply, is no answer.
    expect(
      turnOutcome(
        summary({ stopReason: 'no-function-calls', replied: false, deliveries: 1, noticeSent: true }),
      ),
    ).toMatchObject({ answered: false, noAnswer: 'failure', noticeSent: true });
    // Stored before kaiwa said whether a notice went out: a delivery without a reply was a notice.
    expect(
      turnOutcome(summary({ stopReason: 'no-function-calls', replied: false, deliveries: 1 })),
    ).toMatchObject({ answered: false, noticeSent: true });
  });

  it('reads what an older kaiwa stored without guessing, and nothing from what is not a summary', () => {
    expect(turnOutcome(summary({ stopReason: 'final-tool' }))).toEqual({
      turnId: 'turn-1',
      startedAt: 1_700_000_000_000,
      stopReason: 'final-tool',
      answered: null,
    });
    expect(turnOutcome(null)).toBeUndefined();
    expect(turnOutcome('final-tool')).toBeUndefined();
    expect(turnOutcome({ id: 'turn-1' })).toBeUndefined();
  });
});
