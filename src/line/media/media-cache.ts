/** Bounds of the {@link MediaCache}. */
export interface MediaCacheOptions {
  /** Total bytes kept; the oldest entries leave first. */
  readonly maxBytes: number;
  /** An entry is dropped this long (ms) after it was stored, used or not. */
  readonly ttlMs: number;
  readonly now?: () => number;
}

interface Entry<V> {
  readonly value: V;
  readonly bytes: number;
  readonly expiresAt: number;
}

/**
 * Keeps loaded media for the next model call of the same turn, bounded by total bytes and by
 * age — not by a count, which lets a few large images take hundreds of megabytes. Entries leave
 * in the order they came (the oldest expires first); a sweep on an unref'd timer frees expired
 * ones when nothing else happens, so an idle process gives the memory back.
 */
export class MediaCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly now: () => number;
  private bytes = 0;
  private sweep: NodeJS.Timeout | undefined;

  constructor(private readonly options: MediaCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Bytes held now. */
  get totalBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry for `key` while it is fresh; `{ value }` so a remembered miss (`undefined`) is a hit too. */
  get(key: string): { value: V } | undefined {
    this.dropExpired();
    const entry = this.entries.get(key);
    return entry && { value: entry.value };
  }

  /** Stores `value` as costing `bytes`; a value larger than the whole cache is not kept. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    this.dropExpired();
    if (bytes > this.options.maxBytes) return;
    this.entries.set(key, { value, bytes, expiresAt: this.now() + this.options.ttlMs });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.options.maxBytes) break;
      this.delete(oldest);
    }
    this.scheduleSweep();
  }

  /** Empties the cache and stops its sweep. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
    clearTimeout(this.sweep);
    this.sweep = undefined;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.delete(key);
    }
  }

  private scheduleSweep(): void {
    if (this.sweep) return;
    this.sweep = setTimeout(() => {
      this.sweep = undefined;
      this.dropExpired();
      if (this.entries.size > 0) this.scheduleSweep();
    }, this.options.ttlMs);
    this.sweep.unref();
  }
}
