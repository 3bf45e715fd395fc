import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decideDelivery, deliveryPolicy, type DeliverySituation } from '../../src/line/delivery-policy.js';

const base: DeliverySituation = {
  step: 'start',
  tokenFresh: true,
  mayHaveBeenSent: false,
  replyRetried: false,
  attemptsLeft: true,
  monthlyRetries: 0,
  retryKeyExpired: false,
};

/** One situation per row, each decided by that row and no earlier one. */
const cases: [row: string, situation: Partial<DeliverySituation>][] = [
  ['fresh-token', {}],
  ['resumed-past-key-window', { tokenFresh: false, mayHaveBeenSent: true, retryKeyExpired: true }],
  ['no-fresh-token', { tokenFresh: false }],
  ['no-fresh-token', { tokenFresh: false, retryKeyExpired: true }],
  ['reply-accepted', { step: 'reply', outcome: 'accepted' }],
  ['reply-ambiguous', { step: 'reply', outcome: 'ambiguous' }],
  ['reply-token-used', { step: 'reply', outcome: 'invalid-reply-token', mayHaveBeenSent: true }],
  ['reply-token-expired', { step: 'reply', outcome: 'invalid-reply-token' }],
  ['reply-unavailable', { step: 'reply', outcome: 'ambiguous', replyRetried: true }],
  ['reply-unavailable', { step: 'reply', outcome: 'rate-limited' }],
  ['reply-refused', { step: 'reply', outcome: 'refused' }],
  ['give-up', { step: 'reply', outcome: 'aborted' }],
  ['push-accepted', { step: 'push', outcome: 'accepted' }],
  ['push-duplicate', { step: 'push', outcome: 'duplicate' }],
  ['push-transient', { step: 'push', outcome: 'ambiguous' }],
  ['push-transient', { step: 'push', outcome: 'rate-limited' }],
  ['give-up', { step: 'push', outcome: 'ambiguous', attemptsLeft: false }],
  ['monthly-limit-retry', { step: 'push', outcome: 'monthly-limit', monthlyRetries: 2 }],
  ['monthly-limit-final', { step: 'push', outcome: 'monthly-limit', monthlyRetries: 3 }],
  ['give-up', { step: 'push', outcome: 'refused' }],
  ['give-up', { step: 'push', outcome: 'aborted' }],
  ['give-up', { step: 'push', outcome: 'invalid-reply-token' }],
];

describe('the delivery policy, row by row', () => {
  it.each(cases)('%s decides %j', (row, situation) => {
    expect(decideDelivery({ ...base, ...situation }).id).toBe(row);
  });

  it('has a case for every row, and unique row ids', () => {
    const ids = deliveryPolicy.map((row) => row.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(cases.map(([row]) => row))).toEqual(new Set(ids));
  });

  it('never pushes after a reply that may have been delivered was refused for its token', () => {
    for (const replyRetried of [false, true]) {
      const row = decideDelivery({
        ...base,
        step: 'reply',
        outcome: 'invalid-reply-token',
        mayHaveBeenSent: true,
        replyRetried,
      });
      expect(row.action).toEqual({ kind: 'delivered' });
    }
  });

  it('is the table of docs/line.md, row for row and in order', () => {
    const docs = readFileSync(new URL('../../docs/line.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('## Delivery policy'));
    const table = section
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| row') && !line.startsWith('| --'))
      .slice(0, deliveryPolicy.length)
      .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| |\s+\|$/g, '').trim()));
    expect(table).toEqual(deliveryPolicy.map((row) => [`\`${row.id}\``, row.situation, row.says]));
  });
});
