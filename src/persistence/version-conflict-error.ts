import { KaiwaError } from '../errors/index.js';

const marker = Symbol.for('kaiwa.error.VersionConflictError');

/** Another writer saved the conversation since it was loaded: reload and re-apply. */
export class VersionConflictError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'VersionConflictError' as const;
  constructor(
    readonly sourceId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number | undefined,
  ) {
    super(`conversation ${sourceId}: expected version ${expectedVersion}, found ${actualVersion ?? 'none'}`);
  }

  /** True for a `VersionConflictError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is VersionConflictError {
    return KaiwaError.hasMarker(value, marker);
  }
}
