import { describe, expect, it } from 'vitest';
import { exceedsBounds } from '../../src/domain/index.js';
import { isLineId } from '../../src/line/line-ids.js';
import { readFile } from 'node:fs/promises';
import {
  WEBHOOK_VALIDATOR_FILE,
  webhookValidatorSource,
} from '../../src/line/openapi/webhook-validator-source.js';
import { WebhookEventValidator, eventBounds } from '../../src/line/webhook-event-validator.js';
import { groupIdAsArray, hugeText, textAsObject, textWithoutText } from '../support/hostile-events.js';
import {
  groupId,
  roomSource,
  textMessageEvent,
  userId,
  webhookEventFixtures,
} from '../support/webhook-fixtures.js';

const validator = WebhookEventValidator.shared();

/** `depth` levels of arrays, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

describe('WebhookEventValidator', () => {
  it('uses a webhook-event-validate.js compiled from webhook.yml as it is (else: `npm run line-schemas`)', async () => {
    const committed = await readFile(new URL(`../../${WEBHOOK_VALIDATOR_FILE}`, import.meta.url), 'utf8');
    expect(committed === (await webhookValidatorSource())).toBe(true);
  });

  it.each(Object.entries(webhookEventFixtures))('accepts %s as LINE sends it', (_name, event) => {
    expect(validator.check(event)).toEqual({ kind: 'valid', event });
  });

  it.each([
    ['a text message without text', textWithoutText(textMessageEvent), 'required'],
    ['a text that is an object', textAsObject(textMessageEvent), 'type'],
    ['a groupId that is an array', groupIdAsArray(textMessageEvent), 'type'],
    ['a text longer than LINE allows', hugeText(textMessageEvent), 'maxLength'],
    ['an event without a webhookEventId', { ...textMessageEvent, webhookEventId: undefined }, 'required'],
    ['a timestamp that is not an integer', { ...textMessageEvent, timestamp: 1.5 }, 'type'],
    ['an event that is a string', 'message', 'type'],
    ['an event that is null', null, 'type'],
    ['an array as the event', [textMessageEvent], 'type'],
  ])('refuses %s', (_name, event, keyword) => {
    expect(validator.check(event)).toMatchObject({ kind: 'invalid', problem: { keyword } });
  });

  it.each([
    ['event', { ...textMessageEvent, type: 'bogus' }],
    ['message', { ...textMessageEvent, message: { type: 'hologram', id: '1' } }],
    ['source', { ...textMessageEvent, source: { type: 'channel' } }],
  ])('calls an %s type LINE does not document "unknown", not invalid', (what, event) => {
    expect(validator.check(event)).toEqual({ kind: 'unknown', what });
  });

  it.each([
    ['a user id in a user source', { type: 'user', userId }, true],
    ['a room id in a room source', roomSource, true],
    ['a group id in a user source', { type: 'user', userId: groupId }, false],
    ['a user id in a group source', { type: 'group', groupId: userId }, false],
    ['a room id in a group source', { type: 'group', groupId: 'R' + groupId.slice(1) }, false],
    ['a sender that is not a user id', { type: 'group', groupId, userId: groupId }, false],
    ['an id one digit short', { type: 'user', userId: userId.slice(0, -1) }, false],
    ['an id with a newline after it', { type: 'user', userId: `${userId}\n` }, false],
  ])('checks source ids before they become store keys: %s', (_name, source, valid) => {
    const verdict = validator.check({ ...textMessageEvent, source });
    expect(verdict.kind).toBe(valid ? 'valid' : 'invalid');
  });

  it('names only schema locations in a problem, never the content', () => {
    const secret = 'do-not-log-me';
    const verdict = validator.check({
      ...textMessageEvent,
      message: { ...textMessageEvent.message, text: 42, [secret]: 'x' },
      [`${secret}/key`]: { nested: secret },
    });
    expect(verdict).toMatchObject({ kind: 'invalid', problem: { instancePath: '/message/text' } });
    expect(JSON.stringify(verdict)).not.toContain(secret);
  });
});

describe('exceedsBounds', () => {
  it('measures 10⁵ levels of nesting without recursing', () => {
    expect(exceedsBounds(nested(100_000), eventBounds)).toMatchObject({ keyword: 'maxDepth' });
  });

  it('accepts exactly the bounds and refuses one more', () => {
    const bounds = { maxDepth: 3, maxStringLength: 6, maxValues: 10 };
    expect(exceedsBounds(nested(3), bounds)).toBeUndefined();
    expect(exceedsBounds(nested(4), bounds)).toEqual({ keyword: 'maxDepth', instancePath: '/0/0/0' });
    expect(exceedsBounds({ a: '123456' }, bounds)).toBeUndefined();
    expect(exceedsBounds({ a: '1234567' }, bounds)).toEqual({ keyword: 'maxLength', instancePath: '/a' });
    expect(exceedsBounds({ '1234567': 1 }, bounds)).toMatchObject({ keyword: 'maxLength' });
    expect(
      exceedsBounds(
        Array.from({ length: 9 }, () => 1),
        bounds,
      ),
    ).toBeUndefined();
    expect(
      exceedsBounds(
        Array.from({ length: 10 }, () => 1),
        bounds,
      ),
    ).toMatchObject({ keyword: 'maxValues' });
  });

  it('shows keys a sender made up as *', () => {
    const bounds = { maxDepth: 1, maxStringLength: 20, maxValues: 10 };
    expect(exceedsBounds({ 'my secret': [1] }, bounds)).toEqual({ keyword: 'maxDepth', instancePath: '/*' });
  });
});

describe('isLineId', () => {
  it('takes U, C and R followed by 32 lower-case hex digits, for the matching kind only', () => {
    expect(isLineId('user', userId)).toBe(true);
    expect(isLineId('group', groupId)).toBe(true);
    expect(isLineId('user', userId.toUpperCase())).toBe(false);
    expect(isLineId('group', [])).toBe(false);
  });
});
