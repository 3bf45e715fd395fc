import type { Content } from '@google/genai';

/**
 * The contents of a cached request with the step guidance at the end. The cache holds the
 * prompt prefix and every declaration, and Gemini refuses `systemInstruction` next to
 * `cachedContent`, so the per-step part travels as text in the turn's own contents: a part
 * added to the last user content (the turn's message or its function responses), or a new
 * user content when the history ends with the model. The history itself is not changed.
 */
export function withStepGuidance(contents: readonly Content[], stepGuidance: string | undefined): Content[] {
  if (!stepGuidance) return [...contents];
  const part = { text: stepGuidance };
  const last = contents.at(-1);
  if (last?.role !== 'user') return [...contents, { role: 'user', parts: [part] }];
  return [...contents.slice(0, -1), { ...last, parts: [...(last.parts ?? []), part] }];
}

/** The system instruction of an uncached request: the stable prefix, then the step's part. */
export function withStepInstruction(systemInstruction: string, stepGuidance: string | undefined): string {
  return [systemInstruction, stepGuidance].filter((text) => text !== undefined && text !== '').join('\n\n');
}
