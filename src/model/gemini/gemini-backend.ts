import { GeminiConfigError } from './gemini-config-error.js';
import type { GeminiModelOptions } from './gemini-options.js';

/**
 * Which way in the options take, as `@google/genai` 2.32 resolves them (docs/model.md,
 * "Vertex AI"): the Developer API with a key; Vertex AI with a project and location
 * (credentials from Application Default Credentials, or a key); or Vertex AI express mode, a
 * key without a project. Throws a {@link GeminiConfigError} for options that cannot work:
 *
 * - no key and no Vertex AI: nothing to authenticate with;
 * - Vertex AI with a key and a project but no location: the SDK defaults the location only
 *   when there is no key, so every call would fail with "HTTP options are not correctly set".
 */
export function geminiBackendOf(options: Pick<GeminiModelOptions, 'apiKey' | 'vertex'>): GeminiBackend {
  const { apiKey, vertex } = options;
  if (!vertex) {
    if (!apiKey) {
      throw new GeminiConfigError(
        'GEMINI_API_KEY',
        'is required unless Vertex AI is used (GOOGLE_GENAI_USE_VERTEXAI=true)',
      );
    }
    return 'developer-api';
  }
  if (!apiKey) {
    if (!vertex.project) {
      throw new GeminiConfigError(
        'GOOGLE_CLOUD_PROJECT',
        'is required with GOOGLE_GENAI_USE_VERTEXAI=true and no GEMINI_API_KEY',
      );
    }
    return 'vertex';
  }
  if (!vertex.project) return 'vertex-express';
  if (!vertex.location) {
    throw new GeminiConfigError(
      'GOOGLE_CLOUD_LOCATION',
      'is required with GOOGLE_GENAI_USE_VERTEXAI=true, GEMINI_API_KEY and GOOGLE_CLOUD_PROJECT (e.g. global or us-central1)',
    );
  }
  return 'vertex';
}

/**
 * `vertex-express`: an API key without a project. It has no context cache: the SDK would send
 * every cache to `projects/undefined/locations/undefined/…`.
 */
export type GeminiBackend = 'developer-api' | 'vertex' | 'vertex-express';
