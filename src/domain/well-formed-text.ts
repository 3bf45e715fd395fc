/**
 * Text that is not well-formed Unicode: a lone UTF-16 surrogate, as `text.slice(0, n)` leaves
 * one when it cuts an emoji. JS strings hold it and JSON escapes it (`"\ud83d"`), but UTF-8 has
 * no encoding for it, so strict services refuse it (docs/security.md, "Well-formed text"). In
 * history it would go with every later request of the chat; kaiwa replaces it with U+FFFD
 * wherever text comes in: the webhook, the model's answers, the tools' results.
 */

/** Deeper than any value kaiwa takes in (events 16 levels, call arguments 32): left as it is. */
const MAX_DEPTH = 64;

/**
 * `value` with every string in it, property names included, well-formed: each lone surrogate
 * becomes U+FFFD. Returns `value` itself, untouched, when nothing in it needed that.
 *
 * @example
 * wellFormed({ text: '😀'.slice(0, 1) }); // { text: '\uFFFD' }
 */
export function wellFormed<T>(value: T): T {
  return wellFormedAt(value, 0);
}

function wellFormedAt<T>(value: T, depth: number): T {
  if (typeof value === 'string') return (value.isWellFormed() ? value : value.toWellFormed()) as T;
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, index) => {
      const made = wellFormedAt(item, depth + 1);
      if (made !== item) (copy ??= value.slice())[index] = made;
    });
    return (copy ?? value) as T;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  // Only plain data: a class instance keeps its own rules.
  if (prototype !== Object.prototype && prototype !== null) return value;
  const record = value as Record<string, unknown>;
  // Copied on the first change only: the common value has nothing to change and costs no garbage.
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const made = wellFormedAt(item, depth + 1);
    if (!key.isWellFormed()) {
      copy ??= { ...record };
      delete copy[key];
      copy[key.toWellFormed()] = made;
    } else if (made !== item) {
      // The spread copied `key` as an own data property: this assignment sets it, whatever its name.
      (copy ??= { ...record })[key] = made;
    }
  }
  return (copy ?? value) as T;
}

/**
 * Whether JSON text can hold a lone surrogate at all: only a `\uD800`–`\uDFFF` escape writes one
 * (UTF-8 decoding never yields one). Saves walking a body that has none, which is every body LINE
 * sends with emoji as UTF-8.
 */
export function mayHoldLoneSurrogates(jsonText: string): boolean {
  return /\\u[dD][89a-fA-F]/.test(jsonText);
}

/**
 * `end` as a place to cut `text`, moved back by one when it would split a surrogate pair (an
 * emoji counts two UTF-16 units): a cut there leaves a lone surrogate.
 */
export function pairSafeEnd(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/**
 * At most `maxLength` UTF-16 units of `text`, never half an emoji.
 *
 * @example
 * cutText('a😀', 2); // 'a'
 */
export function cutText(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : text.slice(0, pairSafeEnd(text, maxLength));
}
