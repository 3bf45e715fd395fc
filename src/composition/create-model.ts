import type { KaiwaConfig } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import { GeminiModel, OfflineModel, type ModelPort } from '../model/index.js';

/** Gemini when it is configured, the offline model otherwise. */
export function createModel(config: KaiwaConfig, logger: Logger): ModelPort {
  return config.gemini
    ? new GeminiModel({ ...config.gemini, logger })
    : new OfflineModel({ timeZone: config.timeZone });
}
