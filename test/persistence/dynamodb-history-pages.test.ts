import { describe, expect, it } from 'vitest';
import { compressJson, decompressJson } from '../../src/persistence/dynamodb-compressed-json.js';
import { HistoryChain, paginate, type HistoryPage } from '../../src/persistence/dynamodb-history-pages.js';
import { records, user } from './source-store-fixtures.js';

const page = (fromSeq: number, throughSeq: number, expiresAt?: number): HistoryPage => ({
  fromSeq,
  throughSeq,
  records: [],
  ...(expiresAt !== undefined && { expiresAt }),
});

/** The pages the chain takes, offered newest first as a Query returns them. */
function walk(chain: HistoryChain, pages: HistoryPage[]): string[] {
  const taken: string[] = [];
  for (const offered of pages) {
    if (chain.next(offered)) taken.push(`${offered.fromSeq}-${offered.throughSeq}`);
    if (chain.done) break;
  }
  return taken;
}

describe('the chain of committed history pages', () => {
  it('takes each page that ends where the newer one starts, down to the forgotten seqs', () => {
    const chain = new HistoryChain(9, 0, 0);
    expect(walk(chain, [page(7, 9), page(4, 6), page(1, 3)])).toEqual(['7-9', '4-6', '1-3']);
    expect(chain.done).toBe(true);
    expect(walk(new HistoryChain(9, 3, 0), [page(7, 9), page(4, 6), page(1, 3)])).toEqual(['7-9', '4-6']);
  });

  it('skips pages an interrupted checkpoint left on the way', () => {
    const chain = new HistoryChain(9, 0, 0);
    expect(walk(chain, [page(7, 9), page(6, 8), page(5, 7), page(4, 6), page(1, 3)])).toEqual([
      '7-9',
      '4-6',
      '1-3',
    ]);
  });

  it('ends at a gap and at an expired page', () => {
    expect(walk(new HistoryChain(9, 0, 0), [page(7, 9), page(1, 3)])).toEqual(['7-9']);
    expect(walk(new HistoryChain(9, 0, 100), [page(7, 9, 200), page(4, 6, 100), page(1, 3, 300)])).toEqual([
      '7-9',
    ]);
  });

  it('reads nothing when every page was forgotten', () => {
    expect(new HistoryChain(9, 9, 0).done).toBe(true);
  });
});

describe('paginate', () => {
  it('cuts records into pages within a byte budget that cover the range without gaps', () => {
    const many = records(
      5,
      [1, 2, 3, 4, 5].map((n) => user(`entry ${n} ${'x'.repeat(60)}`)),
    );
    // Room for two records: the JSON array's brackets, two records and the comma between.
    const budget = 2 + 2 * Buffer.byteLength(JSON.stringify(many[0]), 'utf8') + 1;
    const pages = paginate(many, { fromSeq: 4, throughSeq: 10 }, budget);

    expect(pages.map(({ fromSeq, throughSeq, records: kept }) => [fromSeq, throughSeq, kept.length])).toEqual(
      [
        [4, 6, 2],
        [7, 8, 2],
        [9, 10, 1],
      ],
    );
    expect(pages.flatMap(({ records: kept }) => kept)).toEqual(many);
  });

  it('gives a record larger than the budget a page of its own', () => {
    const pages = paginate(records(1, [user('y'.repeat(500))]), { fromSeq: 1, throughSeq: 1 }, 100);
    expect(pages).toHaveLength(1);
  });
});

describe('compressed JSON', () => {
  it('round-trips any JSON, deep nesting and awkward numbers included, behind a codec byte', () => {
    let deep: unknown = { leaf: '' };
    for (let level = 0; level < 40; level++) deep = { level, next: deep };
    const value = {
      deep,
      precise: 0.1 + 0.2,
      big: Number.MAX_SAFE_INTEGER,
      text: 'こんにちは 👋',
      empty: [],
    };

    const bytes = compressJson(value);

    expect(bytes[0]).toBe(1);
    expect(decompressJson(bytes)).toEqual(value);
  });

  it('refuses bytes of an unknown codec', () => {
    const bytes = compressJson({ a: 1 });
    bytes[0] = 9;
    expect(() => decompressJson(bytes)).toThrow(/unknown codec 9/);
  });
});
