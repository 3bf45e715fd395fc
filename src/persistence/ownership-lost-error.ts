/** Another process owns the source now (its fence moved on): stop before the next side effect. */
export class OwnershipLostError extends Error {
  override readonly name = 'OwnershipLostError';
  constructor(
    readonly sourceId: string,
    readonly fence: number,
    readonly actualFence: number | undefined,
  ) {
    super(`source ${sourceId}: ownership with fence ${fence} lost, now ${actualFence ?? 'none'}`);
  }
}
