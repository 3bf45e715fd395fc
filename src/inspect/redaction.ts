/** What a redacted value is replaced with. */
export const REDACTED = '[redacted]';

/** Keys whose text values are credentials: reply and access tokens, secrets, keys, signatures. */
const SECRET_KEY = /(token|secret|password|passwd|authorization|api[-_]?key|signature|credential|cookie)s?$/i;
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/=-]+/g;

export type Redactor = <T>(value: T) => T;

/**
 * Returns a function that copies a JSON-like value with its secrets replaced: text under a
 * credential-like key (`replyToken`, `channelSecret`, `apiKey`; token *counts* stay), any
 * occurrence of a known secret value (the channel secret and access token, `INSPECT_TOKEN`,
 * `GEMINI_API_KEY`) whatever its length — a short secret is still a secret, and hiding a word that
 * happens to match it costs less than showing it — and `Bearer …` credentials inside any text.
 * Everything the inspector
 * sends — pages, JSON and its event stream — goes through it.
 * @example
 * const redact = createRedactor([config.inspect.token]);
 * redact({ replyToken: 'abc', usage: { promptTokens: 12 } }); // { replyToken: '[redacted]', usage: { promptTokens: 12 } }
 */
export function createRedactor(knownSecrets: readonly (string | undefined)[] = []): Redactor {
  const secrets = [...new Set(knownSecrets)]
    .filter((secret): secret is string => typeof secret === 'string' && secret !== '')
    .sort((a, b) => b.length - a.length);

  const redactText = (text: string): string => {
    let result = text.replace(BEARER, `Bearer ${REDACTED}`);
    for (const secret of secrets) result = result.split(secret).join(REDACTED);
    return result;
  };

  /** `ancestors`: the objects above this one; a shared object is copied twice, a cycle cut. */
  const visit = (value: unknown, ancestors: Set<object>): unknown => {
    if (typeof value === 'string') return redactText(value);
    if (value === null || typeof value !== 'object') return value;
    if (ancestors.has(value)) return '[circular]';
    ancestors.add(value);
    try {
      if (Array.isArray(value)) return value.map((item) => visit(item, ancestors));
      const copy: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        const isCount = typeof child === 'number' || typeof child === 'boolean' || child === null;
        copy[redactText(key)] =
          SECRET_KEY.test(key) && !isCount && child !== undefined ? REDACTED : visit(child, ancestors);
      }
      return copy;
    } finally {
      ancestors.delete(value);
    }
  };

  return <T>(value: T): T => visit(value, new Set()) as T;
}
