import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { HistoryWindowCollector } from '../domain/index.js';
import { HistoryChain, type HistoryPage } from './dynamodb-history-pages.js';
import { pageFromItem } from './dynamodb-source-items.js';
import { historySortKey } from './dynamodb-table.js';
import type { TableClient } from './dynamodb-writes.js';
import type { HistoryRecord, HistoryWindow, UnreadableRecord } from './source-store.js';
import { historyEntryFault } from './stored-records.js';

/** Where a source's chain of committed pages starts and where it ends for good. */
export interface PageChainBounds {
  readonly sourceId: string;
  readonly pagedThrough: number;
  readonly forgottenThrough: number;
}

/**
 * Feeds a source's history to `collector` newest first — the head's tail, then committed pages
 * read by one `Query` (`ScanIndexForward: false`, strongly consistent) — until the collector
 * has the window. The `Query`'s `Limit` comes from the window: a simple turn writes one page of
 * about three entries; more pages follow only when the window needs them.
 */
export async function readNewestHistory(
  table: TableClient,
  stored: PageChainBounds & { readonly tail: readonly HistoryRecord[]; readonly unreadableTail?: string },
  collector: HistoryWindowCollector<HistoryRecord>,
  window: HistoryWindow,
  nowSeconds: number,
  unreadable: UnreadableRecord[] = [],
): Promise<void> {
  // A window of no entries (a caller after the head alone) reads no page.
  if (window.maxEntries <= 0) return;
  // An entry that does not read back ends the history as if it began after it.
  const take = (record: HistoryRecord) => {
    const fault = historyEntryFault(record.entry);
    if (fault !== undefined) {
      unreadable.push({ record: 'history', key: String(record.seq), error: fault });
      return false;
    }
    return collector.add(record, record.entry, Buffer.byteLength(JSON.stringify(record.entry), 'utf8'));
  };
  if (stored.unreadableTail !== undefined) {
    unreadable.push({ record: 'history', key: 'tail', error: stored.unreadableTail });
    return;
  }
  for (let index = stored.tail.length - 1; index >= 0; index--) if (!take(stored.tail[index]!)) return;
  for await (const page of committedPages(table, stored, nowSeconds, Math.ceil(window.maxEntries / 3) + 2)) {
    if (page.unreadable !== undefined) {
      unreadable.push({ record: 'history', key: historySortKey(page.throughSeq), error: page.unreadable });
      return;
    }
    for (let index = page.records.length - 1; index >= 0; index--) if (!take(page.records[index]!)) return;
  }
}

/**
 * The committed pages that hold the given `seq`s, found by walking the chain down from the
 * newest page (an unsend takes back a recent message, so the walk is short).
 */
export async function pagesHolding(
  table: TableClient,
  stored: PageChainBounds,
  seqs: readonly number[],
  nowSeconds: number,
): Promise<HistoryPage[]> {
  const wanted = new Set(seqs);
  const lowest = Math.min(...seqs);
  const found: HistoryPage[] = [];
  for await (const page of committedPages(table, stored, nowSeconds, 10)) {
    if (page.records.some((record) => wanted.has(record.seq))) found.push(page);
    if (page.fromSeq <= lowest) break;
  }
  return found;
}

/** The pages on the chain, newest first, read in `Query` pages of `limit` items. */
async function* committedPages(
  table: TableClient,
  stored: PageChainBounds,
  nowSeconds: number,
  limit: number,
): AsyncGenerator<HistoryPage> {
  const chain = new HistoryChain(stored.pagedThrough, stored.forgottenThrough, nowSeconds);
  let exclusiveStartKey: Record<string, unknown> | undefined;
  while (!chain.done) {
    const { Items, LastEvaluatedKey } = await table.documents.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :oldest AND :newest',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: {
          ':pk': stored.sourceId,
          ':oldest': historySortKey(stored.forgottenThrough + 1),
          ':newest': historySortKey(stored.pagedThrough),
        },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: limit,
        ExclusiveStartKey: exclusiveStartKey,
      }),
    );
    for (const item of Items ?? []) {
      const page = pageFromItem(item);
      if (chain.next(page)) yield page;
      if (chain.done) return;
    }
    if (LastEvaluatedKey === undefined) return;
    exclusiveStartKey = LastEvaluatedKey;
  }
}

/** The sort keys of every history page that ends below `seq` (committed or not). */
export async function pageKeysBelow(table: TableClient, sourceId: string, seq: number): Promise<string[]> {
  const keys: string[] = [];
  if (seq <= 1) return keys;
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const { Items, LastEvaluatedKey } = await table.documents.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :last',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: {
          ':pk': sourceId,
          ':first': historySortKey(0),
          ':last': historySortKey(seq - 1),
        },
        ProjectionExpression: '#sk',
        ConsistentRead: true,
        ExclusiveStartKey: exclusiveStartKey,
      }),
    );
    for (const item of Items ?? []) keys.push(String(item.sk));
    exclusiveStartKey = LastEvaluatedKey;
  } while (exclusiveStartKey !== undefined);
  return keys;
}
