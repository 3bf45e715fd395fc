/**
 * A Gemini setting that cannot be used. `variable` names the environment variable (or
 * option) so start-up can fail with one clear line instead of a stack trace.
 */
export class GeminiConfigError extends Error {
  override readonly name = 'GeminiConfigError';
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`${variable} ${reason}`);
  }
}
