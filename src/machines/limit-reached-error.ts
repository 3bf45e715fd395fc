import { KaiwaError } from '../errors/index.js';
import type { LimitKind } from './usage-limits.js';

const marker = Symbol.for('kaiwa.error.LimitReachedError');

/** A per-source limit was reached: the turn ends with a short notice instead of a model call. */
export class LimitReachedError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'LimitReachedError' as const;
  constructor(
    readonly limit: LimitKind,
    readonly sourceId: string,
  ) {
    super(`source ${sourceId} reached its ${limit} limit`);
  }

  /** True for a `LimitReachedError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is LimitReachedError {
    return KaiwaError.hasMarker(value, marker);
  }
}
