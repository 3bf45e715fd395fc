/**
 * Runs work one at a time per key, in call order; different keys run side by side. A failed
 * piece of work fails its caller only, never the work queued behind it.
 * @example
 * const perSource = new OneAtATime();
 * await perSource.run(sourceId, () => writeJournal(sourceId));
 */
export class OneAtATime {
  private readonly queues = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(key, settled);
    // The last in line takes its key's queue with it: keys seen once are not kept.
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return result;
  }
}
