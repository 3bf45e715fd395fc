import type { InboxItem, JsonObject } from '../domain/index.js';
import { compressJson, decompressJson } from './dynamodb-compressed-json.js';
import type { HistoryPage } from './dynamodb-history-pages.js';
import { notAList, notAnObject, readChecked, storedInboxItem, type Parsed } from './stored-records.js';
import {
  HEAD_SORT_KEY,
  PROFILE_PREFIX,
  TAKEN_BACK_ATTRIBUTE,
  historySortKey,
  profileSortKey,
  workShard,
} from './dynamodb-table.js';
import type {
  HistoryRecord,
  SourceHead,
  SourceOwner,
  StoredInboxItem,
  StoredProfile,
} from './source-store.js';

// How the v2 records map to DynamoDB items and back (the table is in dynamodb-table.ts).

/** A stored item as the document client returns it. */
export type StoredItem = Record<string, unknown>;

/** The head as stored, with what only the adapter needs: the tail and the page bounds. */
export interface StoredHead {
  readonly head: SourceHead;
  /** Records above `pagedThrough`, kept in the head until a transaction moves them to a page. */
  readonly tail: readonly HistoryRecord[];
  readonly pagedThrough: number;
  /** Pages up to this `seq` were forgotten (unfollow, leave). */
  readonly forgottenThrough: number;
  /** A forget that did not fit one transaction left deletes to finish, up to this inbox key. */
  readonly forgetThrough?: string;
  /** Why the stored snapshot does not read back (the head then has none). */
  readonly unreadableSnapshot?: string;
  /** Why the tail does not read back (then empty): history starts after it. */
  readonly unreadableTail?: string;
}

/** The head's owner attributes, flat so that conditions and renewals can address them. */
export function ownerAttributes(owner: SourceOwner) {
  return {
    ownerId: owner.ownerId,
    ownerHost: owner.host,
    ownerPid: owner.pid,
    heartbeatAt: owner.heartbeatAt,
    leaseMs: owner.leaseMs,
    leaseUntil: owner.heartbeatAt + owner.leaseMs,
  };
}

/** The owner attribute names, for `REMOVE` on release. */
export const OWNER_ATTRIBUTES = ['ownerId', 'ownerHost', 'ownerPid', 'heartbeatAt', 'leaseMs', 'leaseUntil'];

export function headFromItem(item: StoredItem): StoredHead {
  const owner: SourceOwner | undefined =
    typeof item.ownerId === 'string'
      ? {
          ownerId: item.ownerId,
          host: readString(item, 'ownerHost'),
          pid: readNumber(item, 'ownerPid'),
          heartbeatAt: readNumber(item, 'heartbeatAt'),
          leaseMs: readNumber(item, 'leaseMs'),
        }
      : undefined;
  const snapshot =
    item.snapshot === undefined ? undefined : readCompressed<JsonObject>(item.snapshot, notAnObject);
  const tail = item.tail === undefined ? undefined : readCompressed<HistoryRecord[]>(item.tail, notAList);
  return {
    head: {
      sourceId: readString(item, 'pk'),
      version: readNumber(item, 'version'),
      fence: readNumber(item, 'fence'),
      ...(owner && { owner }),
      machineVersion: readNumber(item, 'machineVersion'),
      ...(snapshot?.value && { snapshot: snapshot.value }),
      lastSeq: readNumber(item, 'lastSeq'),
      busy: item.busy === true,
      updatedAt: readNumber(item, 'updatedAt'),
    },
    tail: tail?.value ?? [],
    pagedThrough: readNumber(item, 'pagedThrough'),
    forgottenThrough: typeof item.forgottenThrough === 'number' ? item.forgottenThrough : 0,
    ...(typeof item.forgetThrough === 'string' && { forgetThrough: item.forgetThrough }),
    ...(snapshot?.error !== undefined && { unreadableSnapshot: snapshot.error }),
    ...(tail?.error !== undefined && { unreadableTail: tail.error }),
  };
}

/** A deflated attribute (`compressJson`) as a value `fault` accepts, or why it is not one. */
function readCompressed<T>(attribute: unknown, fault: (value: unknown) => string | undefined): Parsed<T> {
  return readChecked<T>(() => {
    if (!(attribute instanceof Uint8Array)) throw new TypeError('not binary');
    return decompressJson(attribute);
  }, fault);
}

export function headKey(sourceId: string) {
  return { pk: sourceId, sk: HEAD_SORT_KEY };
}

/** A history page item. `fence` and `version` say which checkpoint wrote it. */
export function pageItem(
  sourceId: string,
  page: HistoryPage,
  options: { fence: number; version: number; expiresAt: number | undefined },
): StoredItem {
  return {
    pk: sourceId,
    sk: historySortKey(page.throughSeq),
    fromSeq: page.fromSeq,
    records: compressJson(page.records),
    fence: options.fence,
    version: options.version,
    ...(options.expiresAt !== undefined && { expiresAt: options.expiresAt }),
  };
}

export function pageFromItem(item: StoredItem): HistoryPage {
  const sortKey = readString(item, 'sk');
  const page = {
    fromSeq: readNumber(item, 'fromSeq'),
    throughSeq: Number(sortKey.slice(2)),
    ...(typeof item.expiresAt === 'number' && { expiresAt: item.expiresAt }),
  };
  // Records that do not read back: the page stays on the chain, holding none of them.
  const records = readCompressed<HistoryRecord[]>(item.records, notAList);
  return records.error === undefined
    ? { ...page, records: records.value }
    : { ...page, records: [], unreadable: records.error };
}

/** An inbox item: the first wave's shape, plus the attempts counted by drains. */
export function inboxItemFromStored(item: StoredItem): StoredInboxItem {
  return storedInboxItem({
    key: readString(item, 'sk'),
    text: typeof item.message === 'string' ? item.message : '',
    attempts: typeof item.attempts === 'number' ? item.attempts : 0,
    ...(typeof item.eventId === 'string' && { eventId: item.eventId }),
    takenBack: item[TAKEN_BACK_ATTRIBUTE] !== undefined,
  });
}

export function inboxStoredItem(
  item: InboxItem,
  options: { sortKey: string; now: number; workIndex: boolean },
): StoredItem {
  return {
    pk: item.source.id,
    sk: options.sortKey,
    eventId: item.eventId,
    message: JSON.stringify(item),
    acceptedAt: options.now,
    ...(options.workIndex && { work: workShard(item.source.id) }),
  };
}

export function profileItem(
  sourceId: string,
  profile: StoredProfile,
  options: { expiresAt: number | undefined },
): StoredItem {
  return {
    pk: sourceId,
    sk: profileSortKey(profile.userId),
    ...(profile.displayName !== undefined && { displayName: profile.displayName }),
    fetchedAt: profile.fetchedAt,
    ...(options.expiresAt !== undefined && { expiresAt: options.expiresAt }),
  };
}

/** A profile item as none or one: one without its fetch time is fetched again and overwritten. */
export function profileFromItem(item: StoredItem): StoredProfile[] {
  if (typeof item.fetchedAt !== 'number') return [];
  return [
    {
      userId: readString(item, 'sk').slice(PROFILE_PREFIX.length),
      ...(typeof item.displayName === 'string' && { displayName: item.displayName }),
      fetchedAt: item.fetchedAt,
    },
  ];
}

export function readString(item: StoredItem, name: string): string {
  const value = item[name];
  if (typeof value !== 'string')
    throw new TypeError(`stored item ${String(item.sk)}: ${name} is not a string`);
  return value;
}

export function readNumber(item: StoredItem, name: string): number {
  const value = item[name];
  if (typeof value !== 'number')
    throw new TypeError(`stored item ${String(item.sk)}: ${name} is not a number`);
  return value;
}
