import { KaiwaError } from '../errors/index.js';
const marker = Symbol.for('kaiwa.error.OwnershipLostError');

/**
 * The source is no longer this caller's: another process took it over (the fence moved on),
 * or it was released. The caller stops before its next side effect and leaves the source to
 * its owner.
 */
export class OwnershipLostError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'OwnershipLostError' as const;
  constructor(
    readonly sourceId: string,
    /** The fence the caller held. */
    readonly fence: number,
    /** The head's fence now (undefined: the source is gone). */
    readonly currentFence: number | undefined,
    /** Who owns the source now (undefined: nobody). */
    readonly currentOwnerId: string | undefined,
  ) {
    super(
      `source ${sourceId}: ownership with fence ${fence} lost (fence now ${currentFence ?? 'none'}, owner ${currentOwnerId ?? 'none'})`,
    );
  }

  /** True for a `OwnershipLostError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is OwnershipLostError {
    return KaiwaError.hasMarker(value, marker);
  }
}
