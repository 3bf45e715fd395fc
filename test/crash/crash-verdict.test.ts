import { describe, expect, it } from 'vitest';
import { judgeCrashRun, type Kill, type SentMessage } from '../support/crash-verdict.js';
import type { RecordedLineRequest } from '../support/fake-line-server.js';

// The crash tests are only as good as their judge: each way of breaking kaiwa's guarantees
// must show up as a problem, and only the documented window may pass as a duplicate.

const TTL_MS = 10_000;
const chat = 'U00000000000000000000000000000001';
const tokens = new Map([
  ['token-0', chat],
  ['token-1', chat],
]);

function message(position: number, sentAt = 1_000): SentMessage {
  return { mark: `s1m${position}`, chatId: chat, source: 1, position, sentAt, acceptedAt: sentAt + 5 };
}

function reply(text: string, time: number, sender = 'A#1', token = 'token-0'): RecordedLineRequest {
  return {
    method: 'POST',
    path: '/v2/bot/message/reply',
    headers: {},
    body: { replyToken: token, messages: [{ type: 'text', text }] },
    schemaProblems: [],
    requestId: `request-${time}`,
    time,
    sender,
    status: 200,
  };
}

function push(text: string, time: number, sender = 'A#2', status = 200): RecordedLineRequest {
  return {
    method: 'POST',
    path: '/v2/bot/message/push',
    headers: { 'x-line-retry-key': '00000000-0000-5000-8000-000000000000' },
    body: { to: chat, messages: [{ type: 'text', text }] },
    schemaProblems: [],
    requestId: `request-${time}`,
    time,
    sender,
    status,
  };
}

function judge(messages: SentMessage[], requests: RecordedLineRequest[], kills: Kill[] = []) {
  return judgeCrashRun({
    messages,
    kills,
    requests,
    chatOfReplyToken: (token) => tokens.get(token),
    replyTokenTtlMs: TTL_MS,
    markerWindowMs: 1_500,
  });
}

describe('the crash run judge', () => {
  it('passes a run where each message got one model answer, in order', () => {
    const verdict = judge(
      [message(0), message(1)],
      [reply('re: s1m0', 2_000), push('re: s1m1', 3_000), push('re: s1m1', 3_100, 'A#2', 409)],
    );
    expect(verdict).toMatchObject({ problems: [], answered: 2, replies: 1, pushes: 1, repeatedRetryKeys: 1 });
  });

  it('fails a lost message, an apology, and an answer out of order', () => {
    expect(judge([message(0)], []).problems).toEqual([expect.stringContaining('lost: s1m0')]);
    expect(
      judge([message(0)], [reply('Sorry, I cannot answer right now.', 2_000), push('re: s1m0', 3_000)])
        .problems,
    ).toEqual([expect.stringContaining('not a model answer')]);
    expect(
      judge([message(0), message(1)], [push('re: s1m1', 2_000), push('re: s1m0', 3_000)]).problems,
    ).toEqual([expect.stringContaining('out of order')]);
  });

  it('fails an answer shown in another chat', () => {
    tokens.set('token-elsewhere', 'U00000000000000000000000000000002');
    expect(judge([message(0)], [reply('re: s1m0', 2_000, 'A#1', 'token-elsewhere')]).problems).toEqual([
      expect.stringContaining('answered in another chat'),
    ]);
  });

  it('allows a second showing only in the documented window: reply, its sender killed at once, push after the TTL', () => {
    const kill = { instance: 'A#1', time: 2_300 };
    const inWindow = judge([message(0)], [reply('re: s1m0', 2_000), push('re: s1m0', 12_000)], [kill]);
    expect(inWindow).toMatchObject({ problems: [], windowDuplicates: 1, cutReplies: 1 });

    // No kill, a kill of someone else or long after the reply, a push within the TTL, two replies.
    const outside = [
      judge([message(0)], [reply('re: s1m0', 2_000), push('re: s1m0', 12_000)]),
      judge(
        [message(0)],
        [reply('re: s1m0', 2_000), push('re: s1m0', 12_000)],
        [{ instance: 'B#1', time: 2_300 }],
      ),
      judge(
        [message(0)],
        [reply('re: s1m0', 2_000), push('re: s1m0', 12_000)],
        [{ instance: 'A#1', time: 5_000 }],
      ),
      judge([message(0)], [reply('re: s1m0', 2_000), push('re: s1m0', 9_000)], [kill]),
      judge([message(0)], [reply('re: s1m0', 2_000), reply('re: s1m0', 12_000, 'A#2', 'token-1')], [kill]),
    ];
    for (const verdict of outside) {
      expect(verdict.windowDuplicates).toBe(0);
      expect(verdict.problems).toEqual([expect.stringContaining('shown twice: s1m0')]);
    }
  });
});
