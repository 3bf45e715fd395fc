import type { KaiwaConfig } from '../config/index.js';
import { OfflineModel, type ModelPort } from '../model/index.js';

/** Gemini when configured, the offline model otherwise. */
export function createModel(config: KaiwaConfig): ModelPort {
  if (config.model === 'gemini') {
    throw new Error('the Gemini adapter is not wired yet');
  }
  return new OfflineModel();
}
