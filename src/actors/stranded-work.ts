import type { Logger } from '../logging/index.js';
import type { SourceStore } from '../persistence/index.js';

export interface StrandedWorkOptions {
  readonly store: Pick<SourceStore, 'sourcesWithWork'>;
  /** Whether this process has the source in hand (in memory, or waiting for a working slot). */
  readonly holds: (sourceId: string) => boolean;
  /** Looks at the source: it is taken over only when its owner is gone (the host's `notify`). */
  readonly adopt: (sourceId: string) => void;
  readonly logger: Logger;
}

/**
 * Work a process left behind when it died for good (a machine lost, a scale-in), on a store
 * several processes share: its sources keep their inbox and busy heads, and no process looks at
 * them — recovery runs at a process's own start, and a source's next message may never come.
 * Each sweep lists the sources with work; those this process does not hold and had seen with
 * work at the previous sweep too are adopted (a live process finishes a turn in seconds, so
 * sweeping a lease apart leaves a busy peer's sources alone and finds a dead one's by the
 * second sweep, once its lease ran out). Sweeping is the caller's: `npm start` on DynamoDB.
 */
export class StrandedWork {
  /** Sources with work that this process did not hold at the last sweep. */
  private unheld = new Set<string>();

  constructor(private readonly options: StrandedWorkOptions) {}

  /** One sweep; resolves with the sources it adopted. Never throws: a failed listing is logged. */
  async sweep(): Promise<string[]> {
    const { store, holds, adopt, logger } = this.options;
    let withWork: string[];
    try {
      withWork = await store.sourcesWithWork();
    } catch (error) {
      logger.error('sources with work could not be listed; the next sweep tries again', { error });
      return [];
    }
    const unheld = withWork.filter((sourceId) => !holds(sourceId));
    const stranded = unheld.filter((sourceId) => this.unheld.has(sourceId));
    this.unheld = new Set(unheld);
    for (const sourceId of stranded) adopt(sourceId);
    if (stranded.length > 0)
      logger.info('looking at sources whose work no process took up since the last sweep', {
        sources: stranded.length,
      });
    return stranded;
  }
}
