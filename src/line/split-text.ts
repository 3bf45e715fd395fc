import { cutText, pairSafeEnd } from '../domain/index.js';

export const MAX_TEXT_LENGTH = 5000;
export const MAX_MESSAGES = 5;
const TRUNCATION_MARKER = '\n…(truncated)';

/**
 * Splits texts into LINE text messages: each at most 5000 UTF-16 code units, cut on the most
 * natural boundary available (paragraph, line, sentence, word), never inside a surrogate
 * pair; at most 5 messages, the last one truncated with a visible marker when more remain.
 */
export function splitForLine(
  texts: readonly string[],
  maxLength = MAX_TEXT_LENGTH,
  maxMessages = MAX_MESSAGES,
): string[] {
  const chunks = texts.flatMap((text) => splitOne(text, maxLength));
  if (chunks.length <= maxMessages) return chunks;
  const kept = chunks.slice(0, maxMessages);
  const last = kept[maxMessages - 1]!;
  kept[maxMessages - 1] = cutText(last, maxLength - TRUNCATION_MARKER.length) + TRUNCATION_MARKER;
  return kept;
}

function splitOne(text: string, maxLength: number): string[] {
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > maxLength) {
    const cut = boundary(rest, maxLength);
    chunks.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0 || chunks.length === 0) chunks.push(rest);
  return chunks;
}

/** The best place to cut `text` so the first part has at most `maxLength` units. */
function boundary(text: string, maxLength: number): number {
  const window = text.slice(0, maxLength + 1);
  const minimum = Math.floor(maxLength / 2); // never cut so early that chunks become tiny
  for (const separator of ['\n\n', '\n', '。', '. ', '! ', '? ', '！', '？', ' ']) {
    const at = window.lastIndexOf(separator, maxLength - separator.length);
    if (at >= minimum) return at + separator.length;
  }
  return pairSafeEnd(text, maxLength);
}
