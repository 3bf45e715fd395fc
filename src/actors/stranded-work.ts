import type { Logger } from '../logging/index.js';
import type { SourceStore } from '../persistence/index.js';

export interface StrandedWorkOptions {
  readonly store: Pick<SourceStore, 'sourcesWithWork'>;
  /**
   * Looks at the source (the host's `notify`): taken over only when its owner is gone; one in a
   * turn here reads its inbox again after it, one owned by a live peer is left to it.
   */
  readonly adopt: (sourceId: string) => void;
  readonly logger: Logger;
}

/**
 * Work a process left behind when it died for good (a machine lost, a scale-in), on a store
 * several processes share: its sources keep their inbox and busy heads, and no process looks at
 * them — recovery runs at a process's own start, and a source's next message may never come.
 * Each sweep lists the sources with work; those that had work at the previous sweep too are
 * looked at (a live process finishes a turn in seconds, so sweeping a lease apart leaves a busy
 * peer's sources alone and finds a dead one's by the second sweep, once its lease ran out) —
 * whether or not this process has them in memory: one idle here may have been taken by the
 * peer that died. Sweeping is the caller's: `npm start` on DynamoDB.
 */
export class StrandedWork {
  /** The sources with work at the last sweep. */
  private withWork = new Set<string>();

  constructor(private readonly options: StrandedWorkOptions) {}

  /** One sweep; resolves with the sources it adopted. Never throws: a failed listing is logged. */
  async sweep(): Promise<string[]> {
    const { store, adopt, logger } = this.options;
    let withWork: string[];
    try {
      withWork = await store.sourcesWithWork();
    } catch (error) {
      logger.error('sources with work could not be listed; the next sweep tries again', { error });
      return [];
    }
    const stranded = withWork.filter((sourceId) => this.withWork.has(sourceId));
    this.withWork = new Set(withWork);
    for (const sourceId of stranded) adopt(sourceId);
    if (stranded.length > 0)
      logger.info('looking at sources that still have work since the last sweep', {
        sources: stranded.length,
      });
    return stranded;
  }
}
