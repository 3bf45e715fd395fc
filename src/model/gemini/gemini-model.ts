import {
  FunctionCallingConfigMode,
  GoogleGenAI,
  type Content,
  type GenerateContentConfig,
  type GenerateContentResponse,
} from '@google/genai';
import { systemClock, wellFormed, type Clock } from '../../domain/index.js';
import { defaults } from '../../defaults/index.js';
import { silentLogger, type Logger } from '../../logging/index.js';
import { sleep, type Sleep } from '../../timing/index.js';
import { noUsage, type ModelPort, type ModelRequest, type ModelResponse } from '../model-port.js';
import { GeminiContextCache, type CachePrefix } from './gemini-cache.js';
import { geminiBackendOf, type GeminiBackend } from './gemini-backend.js';
import { prepareMedia } from './gemini-media.js';
import { toGeminiContents } from './gemini-contents.js';
import { classifyGeminiFailure, isCacheFailure } from './gemini-failure.js';
import {
  DEFAULT_GEMINI_MODEL,
  resolveCacheOptions,
  resolveRetryOptions,
  type GeminiModelOptions,
  type ResolvedRetryOptions,
} from './gemini-options.js';
import { mustEndWithFinalTool, retryPlan, type AnswerPlan } from './gemini-answer-plan.js';
import { generationConfigOf } from './gemini-generation-config.js';
import { addUsage, readGeminiAnswer, type AnswerVerdict } from './gemini-response.js';
import { ModelNoAnswerError } from './model-no-answer-error.js';
import { callWithRetry, type Attempt } from './gemini-retry.js';
import { withStepGuidance, withStepInstruction } from './gemini-step-guidance.js';
import { toGeminiTools } from './gemini-tools.js';

/**
 * The model port on Gemini, through the official `@google/genai` client (Developer API or
 * Vertex AI). One instance serves every conversation of the process: it owns the context
 * cache.
 *
 * - History → `Content[]` following Gemini's turn rules (see `toGeminiContents`); the current
 *   turn's images and voice messages inline when the backend takes them (`prepareMedia`).
 * - Tool selection (SPEC, "Gemini context cache and tool selection"): a cache holds the
 *   prefix and every declaration (`allTools`), and the step guidance goes at the end of the
 *   contents; uncached, the guidance follows the prefix and only the offered tools are declared.
 *   The explicit cache is made beside the requests and used once ready (`GeminiContextCache`).
 * - Provider parts (thought signatures) are returned for history, stored once, and replayed
 *   as Gemini sent them.
 * - 429, 5xx, network errors, timeouts and malformed bodies are retried within
 *   `request.deadline`; a failure for good throws `ModelUnavailableError`.
 * - Every finish reason ends in calls to act on, one more try, or `ModelNoAnswerError`
 *   (docs/model.md, "Finish reasons"): the user is never left in silence.
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
  private readonly options: GeminiModelOptions;
  private readonly backend: GeminiBackend;
  private readonly maxInlineBytes: number;

  constructor(options: GeminiModelOptions) {
    const backend = geminiBackendOf(options);
    this.backend = backend;
    this.maxInlineBytes = options.maxInlineBytes ?? defaults.gemini.maxInlineBytes;
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
    this.options = options;
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
        tokens: this.client.models,
        model: this.model,
        options: cacheOptions,
        clock: this.clock,
        logger: this.logger,
      });
  }

  /**
   * Resolves once no context-cache work runs beside the requests (counting, creating,
   * refreshing): for tests, and for a stop that wants the superseded cache deleted.
   */
  async cacheIdle(): Promise<void> {
    await this.cache?.idle();
  }

  async generate(asked: ModelRequest): Promise<ModelResponse> {
    // The last line of defence for text kaiwa did not take in itself (a history stored before it
    // made text well-formed, a display name): Gemini's strings must be UTF-8 (docs/security.md).
    const request = { ...asked, systemInstruction: wellFormed(asked.systemInstruction) };
    const contents = wellFormed(this.contentsOf(request));
    if (contents.length === 0) {
      this.logger.error('gemini not called: the history has no user message');
      throw new ModelNoAnswerError('empty-history');
    }
    // Every finish reason ends in an answer, a notice or the model's own `skip`: each kind of
    // non-answer is asked again at most once, with what might change it (docs/model.md).
    let usage = noUsage;
    let plan: AnswerPlan = {};
    const retried = new Set<AnswerVerdict>();
    for (;;) {
      const answer = readGeminiAnswer(await this.call(request, contents, plan));
      usage = addUsage(usage, answer.response.usage);
      const { verdict } = answer;
      if (verdict === 'act' || (verdict === 'no-call' && !mustEndWithFinalTool(request))) {
        return { ...answer.response, usage };
      }
      const retry = retried.has(verdict) ? undefined : retryPlan(verdict, request, this.model, this.options);
      this.logger.warn('gemini gave no answer', {
        model: this.model,
        verdict,
        finishReason: answer.finishReason,
        blockReason: answer.blockReason,
        unusableCall: answer.unusableCall,
        next: retry ? 'asking again' : 'notice',
      });
      if (!retry) throw new ModelNoAnswerError(verdict, answer.finishReason, answer.blockReason);
      retried.add(verdict);
      plan = { ...plan, ...retry };
    }
  }

  private contentsOf(request: ModelRequest): Content[] {
    const prepared = prepareMedia(request.history, request.media ?? [], {
      backend: this.backend,
      maxInlineBytes: this.maxInlineBytes,
    });
    if (prepared.leftOut.unsupportedType + prepared.leftOut.overLimit > 0) {
      this.logger.info('gemini media left out; the model gets a note', { ...prepared.leftOut });
    }
    const { contents, dropped } = toGeminiContents(request.history, prepared.media, prepared.notes);
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
    return contents;
  }

  /** One model call, retried on transport failures; the cache when it is ready and the plan allows. */
  private async call(
    request: ModelRequest,
    contents: Content[],
    plan: AnswerPlan,
  ): Promise<GenerateContentResponse> {
    // The cache holds every declaration; the step's selection then travels as text only.
    // Gemini refuses `toolConfig` beside a cache, so a forced call goes uncached.
    const prefix: CachePrefix = {
      systemInstruction: request.systemInstruction,
      tools: toGeminiTools(request.allTools ?? request.tools),
    };
    let cachedContent = plan.onlyCall ? undefined : this.cache?.use(prefix);
    const generation: GenerateContentConfig = {
      ...this.generationConfig,
      ...(plan.thinking && { thinkingConfig: plan.thinking }),
    };
    return callWithRetry(
      async (attempt) => {
        if (cachedContent) {
          try {
            return await this.send(
              withStepGuidance(contents, request.stepGuidance),
              { cachedContent, ...generation },
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
        return this.send(contents, { ...uncachedConfig(request, plan.onlyCall), ...generation }, attempt);
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
  }

  /**
   * Gemini rejects `cachedContent` together with `systemInstruction`, `tools` or
   * `toolConfig`: a cached request carries only the cache, the contents and generation config.
   */
  private send(
    contents: Content[],
    config: GenerateContentConfig,
    attempt: Attempt,
  ): Promise<GenerateContentResponse> {
    return this.client.models.generateContent({
      model: this.model,
      contents,
      config: { ...config, abortSignal: attempt.signal, httpOptions: { fetch: attempt.observer.fetch } },
    });
  }
}

/** Without a cache, selection narrows the declarations and the step's part follows the prefix. */
function uncachedConfig(request: ModelRequest, onlyCall?: readonly string[]): GenerateContentConfig {
  const systemInstruction = withStepInstruction(request.systemInstruction, request.stepGuidance);
  const tools = toGeminiTools(request.tools);
  return {
    ...(systemInstruction && { systemInstruction }),
    ...(tools.length > 0 && { tools }),
    ...(onlyCall &&
      onlyCall.length > 0 && {
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [...onlyCall] },
        },
      }),
  };
}
