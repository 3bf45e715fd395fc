import type { HistoryRecord } from './source-store.js';

// History on DynamoDB is kept in pages: each checkpoint that writes history writes the records
// it adds as one item (more only past the page size), keyed by the last `seq` it covers. Pages
// of committed checkpoints form a chain down from the head's `pagedThrough`: each page covers
// `fromSeq`..`throughSeq` and the next older one ends at `fromSeq - 1`. A page that an
// interrupted checkpoint wrote before its head (see "Large checkpoints" in docs/persistence.md)
// is not on the chain, or lies above `pagedThrough`, and is never read.

/** One history page as stored: the records of `fromSeq`..`throughSeq` that are still there. */
export interface HistoryPage {
  readonly fromSeq: number;
  readonly throughSeq: number;
  readonly records: readonly HistoryRecord[];
  /** Epoch seconds; an expired page ends the chain even before DynamoDB's TTL removed it. */
  readonly expiresAt?: number;
  /** Why its records do not read back (it then holds none). */
  readonly unreadable?: string;
}

/**
 * Follows the chain of committed pages, newest first. `next` says of each page, in the
 * descending order of a `Query`, whether it is on the chain; after `done` nothing older counts.
 */
export class HistoryChain {
  private expected: number;
  private ended = false;

  constructor(
    pagedThrough: number,
    private readonly forgottenThrough: number,
    private readonly nowSeconds: number,
  ) {
    this.expected = pagedThrough;
    this.ended = pagedThrough <= forgottenThrough;
  }

  get done(): boolean {
    return this.ended;
  }

  /** True when the page is the next one on the chain (and moves the chain past it). */
  next(page: HistoryPage): boolean {
    if (this.ended) return false;
    // Above the chain's next end: left by an interrupted checkpoint, never committed.
    if (page.throughSeq > this.expected) return false;
    if (page.throughSeq < this.expected || isExpired(page, this.nowSeconds)) {
      // A gap: the older pages expired (TTL) or were never there.
      this.ended = true;
      return false;
    }
    this.expected = page.fromSeq - 1;
    this.ended = this.expected <= this.forgottenThrough;
    return true;
  }
}

function isExpired(page: HistoryPage, nowSeconds: number): boolean {
  return page.expiresAt !== undefined && page.expiresAt <= nowSeconds;
}

/**
 * Cuts the records of one checkpoint into pages of at most `maxJsonBytes` of JSON each
 * (a record larger than that gets a page of its own). The pages cover `fromSeq`..`throughSeq`
 * without gaps, so that they chain.
 */
export function paginate(
  records: readonly HistoryRecord[],
  range: { readonly fromSeq: number; readonly throughSeq: number },
  maxJsonBytes: number,
): HistoryPage[] {
  const pages: HistoryPage[] = [];
  let current: HistoryRecord[] = [];
  let currentBytes = 2;
  let fromSeq = range.fromSeq;
  for (const record of records) {
    const bytes = Buffer.byteLength(JSON.stringify(record), 'utf8');
    // A record after the first also brings the comma before it.
    if (current.length > 0 && currentBytes + 1 + bytes > maxJsonBytes) {
      const throughSeq = current.at(-1)!.seq;
      pages.push({ fromSeq, throughSeq, records: current });
      fromSeq = throughSeq + 1;
      current = [];
      currentBytes = 2;
    }
    currentBytes += bytes + (current.length > 0 ? 1 : 0);
    current.push(record);
  }
  pages.push({ fromSeq, throughSeq: range.throughSeq, records: current });
  return pages;
}
