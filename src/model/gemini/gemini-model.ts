import {
  GoogleGenAI,
  ThinkingLevel,
  type Content,
  type GenerateContentConfig,
  type GenerateContentResponse,
} from '@google/genai';
import { systemClock, type Clock } from '../../domain/index.js';
import { silentLogger, type Logger } from '../../logging/index.js';
import { sleep, type Sleep } from '../../timing/index.js';
import { noUsage, type ModelPort, type ModelRequest, type ModelResponse } from '../model-port.js';
import { GeminiContextCache, type CachePrefix } from './gemini-cache.js';
import { geminiBackendOf } from './gemini-backend.js';
import { toGeminiContents } from './gemini-contents.js';
import { classifyGeminiFailure, isCacheFailure } from './gemini-failure.js';
import {
  DEFAULT_GEMINI_MODEL,
  resolveCacheOptions,
  resolveRetryOptions,
  type GeminiModelOptions,
  type ResolvedRetryOptions,
} from './gemini-options.js';
import { fromGeminiResponse } from './gemini-response.js';
import { callWithRetry, type Attempt } from './gemini-retry.js';
import { withStepGuidance, withStepInstruction } from './gemini-step-guidance.js';
import { toGeminiTools } from './gemini-tools.js';

/**
 * The model port on Gemini, through the official `@google/genai` client (Developer API or
 * Vertex AI). One instance serves every conversation of the process: it owns the context
 * cache.
 *
 * - History → `Content[]` (see `toGeminiContents`); the current turn's images inline.
 * - Tool selection (SPEC, "Gemini context cache and tool selection"): a cache holds the
 *   prefix and every declaration (`allTools`), and the step guidance goes at the end of the
 *   contents; uncached, the guidance follows the prefix and only the offered tools are declared.
 * - Provider parts (thought signatures) are returned for history and replayed verbatim.
 * - 429, 5xx, network errors, timeouts and malformed bodies are retried within
 *   `request.deadline`; a failure for good throws `ModelUnavailableError`.
 * - A blocked or empty answer is a response with no calls; the reason is logged.
 *
 * Bundling note: an ESM bundle of `@google/genai` needs a `createRequire` banner
 * (`import { createRequire } from 'module'; const require = createRequire(import.meta.url);`)
 * because its CommonJS dependencies (google-auth-library, ws) `require()` Node built-ins,
 * which esbuild's ESM output cannot do without one.
 * @example
 * const model = new GeminiModel({ apiKey: process.env.GEMINI_API_KEY, logger });
 */
export class GeminiModel implements ModelPort {
  readonly name: string;
  private readonly client: GoogleGenAI;
  private readonly model: string;
  private readonly cache: GeminiContextCache | undefined;
  private readonly generationConfig: GenerateContentConfig;
  private readonly retry: ResolvedRetryOptions;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: () => number;

  constructor(options: GeminiModelOptions) {
    const backend = geminiBackendOf(options);
    this.model = options.model ?? DEFAULT_GEMINI_MODEL;
    this.name = this.model;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.sleep = options.sleep ?? sleep;
    this.random = options.random ?? Math.random;
    this.retry = resolveRetryOptions(options.retry);
    // Everything explicit, so the SDK's own environment fallbacks cannot switch the backend.
    this.client = new GoogleGenAI({
      vertexai: options.vertex !== undefined,
      ...(options.apiKey && { apiKey: options.apiKey }),
      ...(options.vertex?.project && { project: options.vertex.project }),
      ...(options.vertex?.location && { location: options.vertex.location }),
      ...(options.baseUrl && { httpOptions: { baseUrl: options.baseUrl } }),
    });
    this.generationConfig = generationConfigOf(options);
    if (backend === 'vertex-express' && options.cache) {
      this.logger.info('gemini explicit cache off: Vertex AI express mode has no project');
    }
    const cacheOptions = resolveCacheOptions(
      this.model,
      backend === 'vertex-express' ? false : options.cache,
    );
    this.cache =
      cacheOptions &&
      new GeminiContextCache({
        caches: this.client.caches,
        model: this.model,
        options: cacheOptions,
        clock: this.clock,
        logger: this.logger,
      });
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const { contents, dropped } = toGeminiContents(request.history, request.media);
    if (Object.values(dropped).some((count) => count > 0)) {
      // Expected after an unsend or a bound; counts only, never what the entries said.
      this.logger.debug('gemini history normalised', { dropped });
    }
    const orphanMedia = (request.media ?? []).filter(
      (media) => !request.history.some((entry) => entry.role === 'user' && entry.eventId === media.eventId),
    );
    if (orphanMedia.length > 0) {
      this.logger.warn('gemini media without a user entry ignored', {
        eventIds: orphanMedia.map((media) => media.eventId),
      });
    }
    if (contents.length === 0) {
      this.logger.warn('gemini not called: the history is empty');
      return { calls: [], usage: noUsage };
    }

    // The cache holds every declaration; the step's selection then travels as text only.
    const prefix: CachePrefix = {
      systemInstruction: request.systemInstruction,
      tools: toGeminiTools(request.allTools ?? request.tools),
    };
    let cachedContent = await this.cache?.cachedContentFor(prefix);
    const raw = await callWithRetry(
      async (attempt) => {
        if (cachedContent) {
          try {
            return await this.send(
              withStepGuidance(contents, request.stepGuidance),
              { cachedContent },
              attempt,
            );
          } catch (error) {
            const failure = classifyGeminiFailure(error, attempt.observer.last, attempt.signal.aborted);
            if (attempt.signal.aborted || !isCacheFailure(failure)) throw error;
            // Gone or expired under us: this request (and the next ones) go without it.
            this.cache?.markFailed(
              cachedContent,
              `HTTP ${failure.status} ${failure.statusText ?? ''}`.trim(),
            );
            cachedContent = undefined;
          }
        }
        return this.send(contents, uncachedConfig(request), attempt);
      },
      {
        policy: this.retry,
        clock: this.clock,
        sleep: this.sleep,
        random: this.random,
        signal: request.signal,
        ...(request.deadline !== undefined && { deadline: request.deadline }),
        onRetry: ({ attempt, delayMs, failure }) =>
          this.logger.warn('gemini call failed; retrying', {
            attempt,
            delayMs,
            kind: failure.kind,
            status: failure.status,
            statusText: failure.statusText,
          }),
      },
    );

    const { response, noReplyReason } = fromGeminiResponse(raw);
    if (noReplyReason) this.logger.warn('gemini gave no reply', { reason: noReplyReason, model: this.model });
    return response;
  }

  /**
   * Gemini rejects `cachedContent` together with `systemInstruction`, `tools` or
   * `toolConfig`: a cached request carries only the cache, the contents and generation config.
   */
  private send(
    contents: Content[],
    prefixConfig: GenerateContentConfig,
    attempt: Attempt,
  ): Promise<GenerateContentResponse> {
    return this.client.models.generateContent({
      model: this.model,
      contents,
      config: {
        ...prefixConfig,
        ...this.generationConfig,
        abortSignal: attempt.signal,
        httpOptions: { fetch: attempt.observer.fetch },
      },
    });
  }
}

/**
 * Only what is set: Gemini 3.6 Flash deprecates the sampling parameters, and every model has
 * its own default thinking.
 */
function generationConfigOf(options: GeminiModelOptions): GenerateContentConfig {
  return {
    ...(options.temperature !== undefined && { temperature: options.temperature }),
    ...(options.topP !== undefined && { topP: options.topP }),
    ...(options.topK !== undefined && { topK: options.topK }),
    ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
    ...(options.thinkingLevel !== undefined && {
      thinkingConfig: { thinkingLevel: THINKING_LEVEL[options.thinkingLevel] },
    }),
    ...(options.thinkingBudget !== undefined && {
      thinkingConfig: { thinkingBudget: options.thinkingBudget },
    }),
  };
}

const THINKING_LEVEL = {
  minimal: ThinkingLevel.MINIMAL,
  low: ThinkingLevel.LOW,
  medium: ThinkingLevel.MEDIUM,
  high: ThinkingLevel.HIGH,
} as const;

/** Without a cache, selection narrows the declarations and the step's part follows the prefix. */
function uncachedConfig(request: ModelRequest): GenerateContentConfig {
  const systemInstruction = withStepInstruction(request.systemInstruction, request.stepGuidance);
  const tools = toGeminiTools(request.tools);
  return {
    ...(systemInstruction && { systemInstruction }),
    ...(tools.length > 0 && { tools }),
  };
}
