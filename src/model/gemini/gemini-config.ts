import { defaults } from '../../defaults/index.js';
import { GeminiConfigError } from './gemini-config-error.js';
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
 * `GEMINI_MODEL`, `GEMINI_BASE_URL`, `GEMINI_TEMPERATURE` (0–2), `GEMINI_MAX_OUTPUT_TOKENS`,
 * `GEMINI_THINKING_BUDGET` (-1 = dynamic), `GEMINI_CACHE` (`on`/`off`), `GEMINI_CACHE_MIN_TOKENS`,
 * `GEMINI_CACHE_TTL_SECONDS`, `GEMINI_MAX_ATTEMPTS` and `GEMINI_ATTEMPT_TIMEOUT_MS`; an unset one
 * keeps its default from `defaults/defaults.ts` (listed in the README's configuration table).
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
  if (useVertex && !apiKey && !project) {
    throw new GeminiConfigError(
      'GOOGLE_CLOUD_PROJECT',
      'is required with GOOGLE_GENAI_USE_VERTEXAI=true and no GEMINI_API_KEY',
    );
  }
  const model = text(env, 'GEMINI_MODEL') ?? DEFAULT_GEMINI_MODEL;
  if (!/^[\w.\-/]+$/.test(model))
    throw new GeminiConfigError('GEMINI_MODEL', `is not a model name: "${model}"`);

  const cacheEnabled =
    flag(env, 'GEMINI_CACHE', ['on', 'true', '1'], ['off', 'false', '0']) ?? defaults.gemini.cache;
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
    ...(useVertex && { vertex: { ...optional('project', project), ...optional('location', location) } }),
    ...optional('baseUrl', url(env, 'GEMINI_BASE_URL')),
    ...optional('temperature', decimal(env, 'GEMINI_TEMPERATURE', 0, 2)),
    ...optional('maxOutputTokens', integer(env, 'GEMINI_MAX_OUTPUT_TOKENS', 1)),
    ...optional('thinkingBudget', integer(env, 'GEMINI_THINKING_BUDGET', -1)),
    cache: cacheEnabled ? cache : false,
    retry,
  };
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

function integer(env: Environment, variable: string, minimum: number): number | undefined {
  const value = text(env, variable);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < minimum) {
    throw new GeminiConfigError(variable, `must be an integer ≥ ${minimum}; got "${value}"`);
  }
  return parsed;
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
