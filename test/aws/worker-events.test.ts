import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MIN_RETRY_DELAY_MS, retryDelayMs, streamTriggers } from '../../src/aws/index.js';
import { atExpression, parseAtExpression, scheduleNamePart } from '../../src/aws/schedule-names.js';

function record(
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  pk: string,
  sk: string,
  sequence: string,
): DynamoDBRecord {
  return {
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: { pk: { S: pk }, sk: { S: sk } },
      SequenceNumber: sequence,
      StreamViewType: 'KEYS_ONLY',
    },
  };
}

describe('stream records → "source X has work"', () => {
  it('only inbox inserts count, one trigger per source with its first record', () => {
    const triggers = streamTriggers({
      Records: [
        record('MODIFY', 'U1', 'CONVERSATION', '100'),
        record('INSERT', 'U1', 'INBOX#000001625665242211#a#e1', '101'),
        record('INSERT', 'CLAIM#e2', 'CLAIM', '102'),
        record('INSERT', 'U2', 'INBOX#000001625665242212#b#e2', '103'),
        record('INSERT', 'U1', 'INBOX#000001625665242213#c#e3', '104'),
        record('REMOVE', 'U3', 'INBOX#000001625665242214#d#e4', '105'),
        record('INSERT', 'U3', 'LEASE', '106'),
      ],
    });
    expect(triggers).toEqual([
      { sourceId: 'U1', sequenceNumber: '101' },
      { sourceId: 'U2', sequenceNumber: '103' },
    ]);
  });
});

describe('scheduled retries', () => {
  it('wait a minute (the scheduler’s precision), doubling, up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 30].map((attempt) => retryDelayMs(attempt, 900_000) / 60_000)).toEqual([
      1, 2, 4, 8, 15, 15, 15,
    ]);
    expect(retryDelayMs(0, 900_000)).toBe(MIN_RETRY_DELAY_MS);
  });

  it('name schedules safely and express their time in whole UTC seconds', () => {
    expect(scheduleNamePart('U4af4980629a1b2c3d4e5f60718293a4b')).toBe('U4af4980629a1b2c3d4e5f60718293a4b');
    expect(scheduleNamePart('a.b/../c')).toMatch(/^h[0-9a-f]{32}$/);
    const at = atExpression(Date.UTC(2030, 5, 7, 8, 9, 10, 1));
    expect(at).toBe('at(2030-06-07T08:09:11)');
    expect(parseAtExpression(at)).toBe(Date.UTC(2030, 5, 7, 8, 9, 11));
  });
});
