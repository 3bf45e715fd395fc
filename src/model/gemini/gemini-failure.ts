import { ApiError } from '@google/genai';
import { isNetworkError } from '../../errors/network-error.js';
import { retryAfterMs } from '../../timing/index.js';
import type { ModelFailureKind } from './model-unavailable-error.js';
import type { ObservedResponse } from './response-observer.js';

/** One failed attempt, classified. */
export interface GeminiFailure {
  readonly kind: ModelFailureKind;
  readonly retryable: boolean;
  readonly status?: number;
  /** `google.rpc.Status.status`, e.g. `RESOURCE_EXHAUSTED`. */
  readonly statusText?: string;
  /** The error message Gemini gave (API errors only; it never holds the user's text). */
  readonly message?: string;
  /** How long the server asked us to wait: RetryInfo `retryDelay`, else `Retry-After`. */
  readonly retryDelayMs?: number;
}

// 429 and 5xx are transient by Gemini's own guidance; 501 (not implemented) is not.
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Classifies what a `@google/genai` call threw. `observed` is the HTTP response the attempt
 * got, if any: the SDK's `ApiError` keeps no headers, and a body that is not JSON loses
 * the status altogether.
 * @param timedOut whether the attempt's own timeout (not the caller) aborted it
 */
export function classifyGeminiFailure(
  error: unknown,
  observed: ObservedResponse | undefined,
  timedOut: boolean,
): GeminiFailure {
  if (timedOut) return { kind: 'timeout', retryable: true };
  if (error instanceof ApiError) {
    const body = parseErrorBody(error.message);
    const retryDelayMs = body.retryDelayMs ?? serverRetryAfter(observed);
    return {
      kind: 'http',
      retryable: RETRYABLE_STATUSES.has(error.status),
      status: error.status,
      ...(body.status && { statusText: body.status }),
      ...(body.message && { message: body.message }),
      ...(retryDelayMs !== undefined && { retryDelayMs }),
    };
  }
  if (error instanceof SyntaxError) {
    // A body that is not JSON: a truncated answer or a proxy's HTML error page.
    const status = observed?.status;
    if (status !== undefined && status >= 400) {
      return { kind: 'http', retryable: RETRYABLE_STATUSES.has(status), status };
    }
    return { kind: 'malformed-response', retryable: true, ...(status !== undefined && { status }) };
  }
  if (isNetworkError(error)) return { kind: 'network', retryable: true };
  return { kind: 'unexpected', retryable: false };
}

interface ErrorBody {
  readonly status?: string;
  readonly message?: string;
  readonly retryDelayMs?: number;
}

/** The SDK puts the JSON error body (`{"error": google.rpc.Status}`) in the message. */
function parseErrorBody(message: string): ErrorBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return {};
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return {};
  const {
    status,
    message: text,
    details,
  } = error as { status?: unknown; message?: unknown; details?: unknown };
  const retryInfo = Array.isArray(details)
    ? (details as { '@type'?: unknown; retryDelay?: unknown }[]).find(
        (detail) => detail['@type'] === 'type.googleapis.com/google.rpc.RetryInfo',
      )
    : undefined;
  const retryDelayMs = parseDuration(retryInfo?.retryDelay);
  return {
    ...(typeof status === 'string' && { status }),
    ...(typeof text === 'string' && { message: text }),
    ...(retryDelayMs !== undefined && { retryDelayMs }),
  };
}

/** A protobuf `Duration` in JSON: `"17s"`, `"0.250s"`. */
function parseDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value);
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

/** `Retry-After`, measured against the server's own `Date` so clock skew does not matter. */
function serverRetryAfter(observed: ObservedResponse | undefined): number | undefined {
  if (!observed) return undefined;
  const serverNow = Date.parse(observed.headers.get('date') ?? '');
  return retryAfterMs(
    observed.headers.get('retry-after'),
    Number.isNaN(serverNow) ? observed.receivedAt : serverNow,
  );
}

/**
 * Whether a failed request that used `cachedContent` failed because of the cache (gone,
 * expired, not ours): then the same request without the cache can still succeed.
 */
export function isCacheFailure(failure: GeminiFailure): boolean {
  if (failure.kind !== 'http') return false;
  if (failure.status === 403 || failure.status === 404) return true;
  return failure.status === 400 && /cach/i.test(failure.message ?? '');
}
