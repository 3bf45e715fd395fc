/**
 * Well-signed but malformed webhook events, as a fuzzer (or a LINE payload change) produces
 * them. Each takes a valid event to break, so the rest of it is LINE-shaped.
 */

/**
 * Stands for 10⁴ levels of nesting (`[[[…]]]`) until {@link serialize} writes the body: the test's
 * own `JSON.stringify` would overflow its stack on the real thing, which is the point.
 */
export const DEEPLY_NESTED = 'deeply-nested-placeholder';

/** `JSON.stringify`, with every {@link DEEPLY_NESTED} written out as `depth` levels of arrays. */
export function serialize(body: unknown, depth = 10_000): string {
  const nesting = `${'['.repeat(depth)}"bottom"${']'.repeat(depth)}`;
  return JSON.stringify(body).replaceAll(JSON.stringify(DEEPLY_NESTED), nesting);
}

type AnyEvent = { message?: object; source?: object } & object;

/** `message.text` is an object rather than a string (once stored, every later turn failed). */
export const textAsObject = <E extends AnyEvent>(event: E, secret = 'private words') => ({
  ...event,
  message: { ...event.message, text: { toString: secret } },
});

/** `source.groupId` is an array (it once wrote a file into the inbox root). */
export const groupIdAsArray = <E extends AnyEvent>(event: E) => ({
  ...event,
  source: { type: 'group', groupId: [], userId: 'U' + 'e'.repeat(32) },
});

/** A source id that is a string but not a LINE id: a path, or a user id posing as a group. */
export const groupIdNotLineShaped = <E extends AnyEvent>(event: E, groupId: string) => ({
  ...event,
  source: { type: 'group', groupId, userId: 'U' + 'e'.repeat(32) },
});

/** 10⁴ levels of nesting where LINE puts a string. */
export const deeplyNestedText = <E extends AnyEvent>(event: E) => ({
  ...event,
  message: { ...event.message, text: DEEPLY_NESTED },
});

/** 10⁴ levels of nesting in `type`, the field a skip is logged with. */
export const deeplyNestedType = <E extends AnyEvent>(event: E) => ({ ...event, type: DEEPLY_NESTED });

/** A text far longer than LINE allows (5,000 characters). */
export const hugeText = <E extends AnyEvent>(event: E, length = 300_000) => ({
  ...event,
  message: { ...event.message, text: 'x'.repeat(length) },
});

/** A text message without its text: `{type: 'text'}` (plain ajv on the OpenAPI file accepts it). */
export const textWithoutText = <E extends AnyEvent>(event: E) => {
  const { text: _text, ...message } = (event.message ?? {}) as { text?: unknown };
  return { ...event, message };
};

/**
 * A `webhookEventId` no LINE event has (LINE's are ULIDs, 26 characters): 2,000 characters, too
 * long for a DynamoDB key, or characters the stores' keys use as separators.
 */
export const eventIdNotLineShaped = <E extends object>(event: E, id = 'A'.repeat(2_000)) => ({
  ...event,
  webhookEventId: id,
});
