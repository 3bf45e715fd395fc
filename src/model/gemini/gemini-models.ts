// What kaiwa needs to know about a Gemini model by its name (docs/model.md, "Models").

/** Gemini 3's thinking levels (`thinkingConfig.thinkingLevel`); 2.5 models take a token budget. */
export const THINKING_LEVELS = ['minimal', 'low', 'medium', 'high'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/**
 * The smallest context cache each model accepts, in tokens (Google's context caching page,
 * November 2026). A model not listed gets {@link CONSERVATIVE_CACHE_MINIMUM}: the largest
 * minimum Google lists, so kaiwa never asks for a cache Gemini refuses.
 */
const CACHE_MINIMUMS: Readonly<Record<string, number>> = {
  'gemini-2.5-flash': 2048,
  'gemini-2.5-pro': 2048,
  'gemini-3.1-pro-preview': 4096,
  'gemini-3.5-flash': 4096,
  'gemini-3.6-flash': 4096,
  'gemini-3.7-flash': 4096,
  'gemini-3.8-flash': 4096,
};
export const CONSERVATIVE_CACHE_MINIMUM = 4096;

/** `models/gemini-3.6-flash`, `gemini-3.6-flash-001` → `gemini-3.6-flash`. */
function baseName(model: string): string {
  return model.replace(/^models\//, '').replace(/-\d{3}$/, '');
}

/** The smallest cache `model` accepts (tokens). */
export function minimumCacheTokens(model: string): number {
  return CACHE_MINIMUMS[baseName(model)] ?? CONSERVATIVE_CACHE_MINIMUM;
}

/** Gemini 2.x thinks within a token budget; Gemini 3 and later by level. */
export function thinksByBudget(model: string): boolean {
  return /^gemini-2\./.test(baseName(model));
}

/** The Pro models cannot turn thinking off: they refuse a budget of 0. */
export function isProModel(model: string): boolean {
  return /-pro(-|$)/.test(baseName(model));
}
