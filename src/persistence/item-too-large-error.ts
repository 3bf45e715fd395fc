/**
 * A stored item would exceed kaiwa's ceiling (below DynamoDB's hard 400 KB limit). Bounded
 * history prevents it; if it still happens, the write is refused before it is sent.
 */
export class ItemTooLargeError extends Error {
  override readonly name = 'ItemTooLargeError';
  constructor(
    readonly sourceId: string,
    readonly sizeBytes: number,
    readonly limitBytes: number,
  ) {
    super(`conversation ${sourceId}: item of ${sizeBytes} bytes exceeds the limit of ${limitBytes} bytes`);
  }
}
