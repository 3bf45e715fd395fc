/** Another writer saved the conversation since it was loaded: reload and re-apply. */
export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError';
  constructor(
    readonly sourceId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number | undefined,
  ) {
    super(`conversation ${sourceId}: expected version ${expectedVersion}, found ${actualVersion ?? 'none'}`);
  }
}
