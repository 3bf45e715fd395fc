import { KaiwaError } from '../../errors/index.js';

/**
 * Why Gemini's answer gave the conversation nothing to act on (docs/model.md, "Finish reasons"):
 * - `refused`: blocked or stopped for safety, recitation, language, too many tool calls, `OTHER`
 *   or a finish reason kaiwa does not know — asking again would get the same;
 * - `malformed-call`: a malformed or undeclared function call, twice;
 * - `out-of-tokens`: `MAX_TOKENS` without a call, with as little thinking as the model allows;
 * - `no-call`: text but no `reply` or `skip`, even when asked for one of them;
 * - `empty-history`: no user message to answer (a bug upstream: the turn's message is missing).
 */
export type NoAnswerReason = 'refused' | 'malformed-call' | 'out-of-tokens' | 'no-call' | 'empty-history';

const marker = Symbol.for('kaiwa.error.ModelNoAnswerError');

/**
 * The model answered, but with nothing to act on. Like {@link ModelUnavailableError}, the
 * conversation machine answers it with a notice to the user, never with silence.
 */
export class ModelNoAnswerError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'ModelNoAnswerError' as const;
  constructor(
    readonly reason: NoAnswerReason,
    /** Gemini's `finishReason` of the last answer, when it had one. */
    readonly finishReason?: string,
    /** `promptFeedback.blockReason` when the prompt itself was blocked. */
    readonly blockReason?: string,
  ) {
    const why = blockReason
      ? `prompt blocked (${blockReason})`
      : finishReason
        ? `finished with ${finishReason}`
        : '';
    super(`the model gave no answer: ${reason}${why ? `, ${why}` : ''}`);
  }

  /** True for a `ModelNoAnswerError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is ModelNoAnswerError {
    return KaiwaError.hasMarker(value, marker);
  }
}
