import { ThinkingLevel, type GenerateContentConfig, type ThinkingConfig } from '@google/genai';
import { isProModel, thinksByBudget } from './gemini-models.js';
import type { GeminiModelOptions } from './gemini-options.js';

const LEVELS = {
  minimal: ThinkingLevel.MINIMAL,
  low: ThinkingLevel.LOW,
  medium: ThinkingLevel.MEDIUM,
  high: ThinkingLevel.HIGH,
} as const;

/**
 * The generation settings, only those that are set: Gemini 3.6 Flash deprecates the sampling
 * parameters, and every model has its own default thinking.
 */
export function generationConfigOf(options: GeminiModelOptions): GenerateContentConfig {
  return {
    ...(options.temperature !== undefined && { temperature: options.temperature }),
    ...(options.topP !== undefined && { topP: options.topP }),
    ...(options.topK !== undefined && { topK: options.topK }),
    ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
    ...(options.thinkingLevel !== undefined && {
      thinkingConfig: { thinkingLevel: LEVELS[options.thinkingLevel] },
    }),
    ...(options.thinkingBudget !== undefined && {
      thinkingConfig: { thinkingBudget: options.thinkingBudget },
    }),
  };
}

/**
 * Less thinking than `options` ask for, to retry an answer whose thinking used the whole output
 * budget (`MAX_TOKENS` without a call); `undefined` when it cannot go lower.
 *
 * Gemini 3 goes to `low`, the lowest level every Gemini 3 model takes (the Pro models and 3.8
 * Flash know no `minimal`). Gemini 2.5 goes to a budget of 0 (Flash: no thinking) or 128 (the
 * Pro models' smallest; they refuse 0).
 */
export function lessThinking(model: string, options: GeminiModelOptions): ThinkingConfig | undefined {
  if (thinksByBudget(model)) {
    const least = isProModel(model) ? 128 : 0;
    const budget = options.thinkingBudget;
    return budget !== undefined && budget !== -1 && budget <= least ? undefined : { thinkingBudget: least };
  }
  const level = options.thinkingLevel;
  return level === 'low' || level === 'minimal' ? undefined : { thinkingLevel: ThinkingLevel.LOW };
}
