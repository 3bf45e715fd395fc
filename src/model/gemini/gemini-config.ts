import { defaults } from '../../defaults/index.js';
import { geminiBackendOf } from './gemini-backend.js';
import { GeminiConfigError } from './gemini-config-error.js';
import { isProModel, THINKING_LEVELS, thinksByBudget, type ThinkingLevel } from './gemini-models.js';
import {
  DEFAULT_GEMINI_MODEL,
  type GeminiCacheOptions,
  type GeminiModelOptions,
  type GeminiRetryOptions,
} from './gemini-options.js';

/** Environment variables as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Reads the Gemini settings from the environment. Returns `undefined` when neither
 * `GEMINI_API_KEY` nor `GOOGLE_GENAI_USE_VERTEXAI` is set: kaiwa then runs the offline model.
 * Throws a {@link GeminiConfigError} naming the first invalid variable.
 *
 * Reads `GEMINI_API_KEY` (a Vertex AI express-mode key too), `GOOGLE_GENAI_USE_VERTEXAI`,
 * `GOOGLE_CLOUD_PROJECT` (required for Vertex AI without a key), `GOOGLE_CLOUD_LOCATION`,
 * `GEMINI_MODEL`, `GEMINI_BASE_URL`, `GEMINI_THINKING_LEVEL` (`minimal`…`high`, Gemini 3),
 * `GEMINI_THINKING_BUDGET` (-1 = dynamic, Gemini 2.5), `GEMINI_TEMPERATURE` (0–2),
 * `GEMINI_TOP_P` (0–1), `GEMINI_TOP_K`, `GEMINI_MAX_OUTPUT_TOKENS`, `GEMINI_MAX_INLINE_BYTES`,
 * `GEMINI_CACHE` (`on`/`off`), `GEMINI_CACHE_MIN_TOKENS`, `GEMINI_CACHE_TTL_SECONDS`,
 * `GEMINI_MAX_ATTEMPTS` and `GEMINI_ATTEMPT_TIMEOUT_MS`; an unset one keeps its default from
 * `defaults/defaults.ts` (listed in the README's configuration table), and an unset generation
 * setting is not sent at all.
 * @example
 * const gemini = geminiOptionsFromEnv(process.env);
 * const model = gemini ? new GeminiModel({ ...gemini, logger }) : new OfflineModel();
 */
export function geminiOptionsFromEnv(env: Environment): GeminiModelOptions | undefined {
  const apiKey = text(env, 'GEMINI_API_KEY');
  const useVertex = flag(env, 'GOOGLE_GENAI_USE_VERTEXAI', ['true', '1'], ['false', '0']) ?? false;
  if (!apiKey && !useVertex) return undefined;

  const project = text(env, 'GOOGLE_CLOUD_PROJECT');
  const location = text(env, 'GOOGLE_CLOUD_LOCATION');
  const vertex = useVertex
    ? { ...optional('project', project), ...optional('location', location) }
    : undefined;
  const backend = geminiBackendOf({ ...optional('apiKey', apiKey), ...optional('vertex', vertex) });
  const model = text(env, 'GEMINI_MODEL') ?? DEFAULT_GEMINI_MODEL;
  if (!/^[\w.\-/]+$/.test(model))
    throw new GeminiConfigError('GEMINI_MODEL', `is not a model name: "${model}"`);

  const cacheAsked = flag(env, 'GEMINI_CACHE', ['on', 'true', '1'], ['off', 'false', '0']);
  if (cacheAsked && backend === 'vertex-express') {
    throw new GeminiConfigError(
      'GEMINI_CACHE',
      'cannot be on in Vertex AI express mode (an API key without GOOGLE_CLOUD_PROJECT has no context cache)',
    );
  }
  const cacheEnabled = (cacheAsked ?? defaults.gemini.cache) && backend !== 'vertex-express';
  const thinkingLevel = choice(env, 'GEMINI_THINKING_LEVEL', THINKING_LEVELS);
  const thinkingBudget = integer(env, 'GEMINI_THINKING_BUDGET', -1);
  checkThinking(model, thinkingLevel, thinkingBudget);

  const cache: GeminiCacheOptions = {
    ...optional('minTokens', integer(env, 'GEMINI_CACHE_MIN_TOKENS', 0)),
    ...optional('ttlSeconds', integer(env, 'GEMINI_CACHE_TTL_SECONDS', 60)),
  };
  const retry: GeminiRetryOptions = {
    ...optional('maxAttempts', integer(env, 'GEMINI_MAX_ATTEMPTS', 1)),
    ...optional('attemptTimeoutMs', integer(env, 'GEMINI_ATTEMPT_TIMEOUT_MS', 1)),
  };
  return {
    model,
    ...optional('apiKey', apiKey),
    ...optional('vertex', vertex),
    ...optional('baseUrl', url(env, 'GEMINI_BASE_URL')),
    ...optional('temperature', decimal(env, 'GEMINI_TEMPERATURE', 0, 2)),
    ...optional('topP', decimal(env, 'GEMINI_TOP_P', 0, 1)),
    ...optional('topK', integer(env, 'GEMINI_TOP_K', 1)),
    ...optional('maxOutputTokens', integer(env, 'GEMINI_MAX_OUTPUT_TOKENS', 1)),
    ...optional('thinkingLevel', thinkingLevel),
    ...optional('thinkingBudget', thinkingBudget),
    ...optional('maxInlineBytes', integer(env, 'GEMINI_MAX_INLINE_BYTES', 1024, 20_000_000)),
    cache: cacheEnabled ? cache : false,
    retry,
  };
}

/**
 * Gemini takes a thinking level or a budget, not both; 2.5 models know no levels, and the Pro
 * models refuse a budget of 0 (they cannot stop thinking).
 */
function checkThinking(model: string, level: ThinkingLevel | undefined, budget: number | undefined): void {
  if (level !== undefined && budget !== undefined) {
    throw new GeminiConfigError('GEMINI_THINKING_LEVEL', 'and GEMINI_THINKING_BUDGET cannot both be set');
  }
  if (level !== undefined && thinksByBudget(model)) {
    throw new GeminiConfigError(
      'GEMINI_THINKING_LEVEL',
      `is for Gemini 3 models; ${model} takes GEMINI_THINKING_BUDGET`,
    );
  }
  if (budget === 0 && isProModel(model)) {
    throw new GeminiConfigError(
      'GEMINI_THINKING_BUDGET',
      `cannot be 0 for ${model}: Pro models always think`,
    );
  }
}

// An unset variable leaves its key out, so options spread over defaults without erasing them.
function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function text(env: Environment, variable: string): string | undefined {
  const value = env[variable]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function flag(env: Environment, variable: string, yes: string[], no: string[]): boolean | undefined {
  const value = text(env, variable)?.toLowerCase();
  if (value === undefined) return undefined;
  if (yes.includes(value)) return true;
  if (no.includes(value)) return false;
  throw new GeminiConfigError(variable, `must be one of ${[...yes, ...no].join(', ')}; got "${value}"`);
}

function integer(
  env: Environment,
  variable: string,
  minimum: number,
  maximum = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const value = text(env, variable);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < minimum || parsed > maximum) {
    const range = maximum === Number.MAX_SAFE_INTEGER ? `≥ ${minimum}` : `from ${minimum} to ${maximum}`;
    throw new GeminiConfigError(variable, `must be an integer ${range}; got "${value}"`);
  }
  return parsed;
}

function choice<T extends string>(env: Environment, variable: string, choices: readonly T[]): T | undefined {
  const value = text(env, variable)?.toLowerCase();
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) {
    throw new GeminiConfigError(variable, `must be one of ${choices.join(', ')}; got "${value}"`);
  }
  return value as T;
}

function decimal(env: Environment, variable: string, minimum: number, maximum: number): number | undefined {
  const value = text(env, variable);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || parsed < minimum || parsed > maximum) {
    throw new GeminiConfigError(variable, `must be a number from ${minimum} to ${maximum}; got "${value}"`);
  }
  return parsed;
}

function url(env: Environment, variable: string): string | undefined {
  const value = text(env, variable);
  if (value === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new GeminiConfigError(variable, `is not a URL: "${value}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new GeminiConfigError(variable, `must be an http(s) URL; got "${value}"`);
  }
  return value;
}
