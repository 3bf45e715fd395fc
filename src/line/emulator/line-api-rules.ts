/**
 * LINE's rules that `messaging-api.yml` does not state, checked the way LINE checks them
 * (docs/line.md, "The emulator"): what the schema cannot say, LINE still refuses with 400.
 */

/** One entry of an error body's `details`, as LINE's `ErrorDetail` schema has it. */
export interface ErrorDetail {
  readonly message: string;
  readonly property?: string;
}

/** LINE counts a text's length in UTF-16 code units, which is what `String.length` counts. */
export const MAX_TEXT_LENGTH = 5000;

/** The retry key is "a hexadecimal UUID" (`X-Line-Retry-Key`, `format: uuid` in messaging-api.yml). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isRetryKey(value: string): boolean {
  return UUID.test(value);
}

/** Text messages of a reply or push longer than LINE allows. */
export function messageProblems(body: unknown): ErrorDetail[] {
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((message: unknown, index) => {
    const { type, text } = (message ?? {}) as { type?: unknown; text?: unknown };
    return type === 'text' && typeof text === 'string' && text.length > MAX_TEXT_LENGTH
      ? [{ message: `Length must be between 0 and ${MAX_TEXT_LENGTH}`, property: `messages[${index}].text` }]
      : [];
  });
}

/** `loadingSeconds` must be a multiple of 5 between 5 and 60 (messaging-api.yml says so in prose). */
export function loadingProblems(body: unknown): ErrorDetail[] {
  const seconds = (body as { loadingSeconds?: unknown } | undefined)?.loadingSeconds;
  if (seconds === undefined) return [];
  const valid = typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= 5 && seconds <= 60;
  return valid && seconds % 5 === 0
    ? []
    : [{ message: 'Must be a multiple of 5 between 5 and 60', property: 'loadingSeconds' }];
}

/** LINE's 400 body for a request that breaks its rules: a count, then the details. */
export function invalidRequestBody(details: readonly ErrorDetail[]): {
  message: string;
  details: ErrorDetail[];
} {
  return { message: `The request body has ${details.length} error(s)`, details: [...details] };
}
