import { KaiwaError } from '../errors/index.js';

const marker = Symbol.for('kaiwa.error.ItemTooLargeError');

/**
 * A stored item would exceed kaiwa's ceiling (below DynamoDB's hard 400 KB limit). Bounded
 * history prevents it; if it still happens, the write is refused before it is sent.
 */
export class ItemTooLargeError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'ItemTooLargeError' as const;
  constructor(
    readonly sourceId: string,
    readonly sizeBytes: number,
    readonly limitBytes: number,
  ) {
    super(`conversation ${sourceId}: item of ${sizeBytes} bytes exceeds the limit of ${limitBytes} bytes`);
  }

  /** True for a `ItemTooLargeError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is ItemTooLargeError {
    return KaiwaError.hasMarker(value, marker);
  }
}
