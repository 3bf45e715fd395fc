import { describe, expect, it } from 'vitest';
// @ts-expect-error: browser code in plain JavaScript, without types.
import { historyText } from '../../src/inspect/assets/history-text.js';

const write = historyText as (entry: unknown) => string;
const aiko = { userId: 'U1', displayName: 'Aiko' };

describe("the inspector's history lines", () => {
  it('say what the model was told besides the words: an event, a reminder late, a quote, the ids LINE gave a reply', () => {
    // They showed "Aiko: action=buy" for a pressed button and typed words alike.
    expect(write({ role: 'user', sender: aiko, text: 'action=buy', event: 'postback' })).toBe(
      'Aiko (event: postback): action=buy',
    );
    expect(
      write({
        role: 'user',
        sender: aiko,
        text: '[reminder due] stretch',
        event: 'reminder',
        dueAt: Date.UTC(2026, 10, 22, 9),
      }),
    ).toBe('Aiko (event: reminder, due 2026-11-22T09:00:00.000Z): [reminder due] stretch');
    expect(write({ role: 'user', sender: aiko, text: 'why?', quotedMessageId: '4612' })).toBe(
      'Aiko (replying to message 4612): why?',
    );
    expect(write({ role: 'user', sender: { userId: 'U2' }, text: 'hi' })).toBe('U2: hi');
    expect(
      write({
        role: 'tool',
        results: [{ name: 'reply', response: { sent: true }, lineMessageIds: ['4612'] }],
      }),
    ).toBe('tools: reply → {"sent":true} [LINE messages 4612]');
    expect(write({ role: 'model', text: '', calls: [{ name: 'reply', args: { message: 'ok' } }] })).toBe(
      'model: reply({"message":"ok"})',
    );
  });
});
