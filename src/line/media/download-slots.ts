/**
 * At most `limit` downloads at once; the rest wait their turn in order. A waiter whose signal
 * aborts (its turn ended) leaves the queue at once. This bounds the memory images in flight can
 * take: `limit` × the byte cap, whatever the number of chats sending pictures.
 */
export class DownloadSlots {
  private running = 0;
  private readonly waiting: { start: () => void }[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`download slots must be ≥ 1 (got ${limit})`);
  }

  /** Downloads running now. */
  get active(): number {
    return this.running;
  }

  /** Downloads waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `work` once a slot is free; rejects with the signal's reason if it aborts first. */
  async run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    await this.acquire(signal);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        start: () => {
          signal.removeEventListener('abort', abandon);
          resolve();
        },
      };
      const abandon = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', abandon, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter: `running` stays as it is.
    if (next) next.start();
    else this.running--;
  }
}
