import { KaiwaError } from '../errors/index.js';
import type { LimitKind, LimitNotice } from './conversation-types.js';

const marker = Symbol.for('kaiwa.error.LimitReachedError');

/**
 * A per-source limit was reached: the turn ends with a short notice instead of a model call, or
 * quietly when the chat was told of this limit already (`LimitNotice`).
 */
export class LimitReachedError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'LimitReachedError' as const;
  constructor(
    readonly limit: LimitKind,
    readonly sourceId: string,
    /** When it was found reached, and when a notice of it may be sent again (epoch ms). */
    readonly notice: LimitNotice,
  ) {
    super(`source ${sourceId} reached its ${limit} limit`);
  }

  /** True for a `LimitReachedError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is LimitReachedError {
    return KaiwaError.hasMarker(value, marker);
  }
}
