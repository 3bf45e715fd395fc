import { describe, expect, it } from 'vitest';
import { planInbox } from '../../src/actors/index.js';
import type { InboundMessage } from '../../src/domain/index.js';
import type { StoredInboxItem } from '../../src/persistence/index.js';

const source = { kind: 'user', id: 'U' + 'a'.repeat(32) } as const;

function waiting(text: string, position: number, options: { takenBack?: true } = {}): StoredInboxItem {
  const item: InboundMessage = {
    eventId: `e-${text}`,
    source,
    text,
    timestamp: 1_800_000_000_000 + position,
    messageId: `m-${text}`,
  };
  return { key: String(position), item, attempts: 0, ...options };
}

const merge = { queuePolicy: 'merge', maxQueuedTurns: 20 } as const;

describe('planInbox: a message its unsend marked (the unsend beyond what was read)', () => {
  it('is planned as taken back first, its own item consumed, no turn', () => {
    const { plan } = planInbox(
      [waiting('oops', 1, { takenBack: true }), waiting('fine', 2)],
      [],
      merge,
      undefined,
    );

    expect(plan).toEqual({
      kind: 'unsend',
      key: '1',
      messageId: 'm-oops',
      at: 1_800_000_000_001,
      markedOnly: true,
    });
  });

  it('ends a merged turn before it, so it never goes to the model', () => {
    const { plan } = planInbox(
      [waiting('one', 1), waiting('oops', 2, { takenBack: true }), waiting('three', 3)],
      [],
      merge,
      undefined,
    );

    expect(plan).toMatchObject({ kind: 'turn', keys: ['1'] });
  });
});
