import type { HistoryEntry, InboxItem, JsonObject } from '../domain/index.js';
import type { StoredInboxItem, StoredProfile, UnreadableRecord } from './source-store.js';

// Records come back from text a store wrote. One that does not parse, or is not the record it
// should be (a row edited by hand, a bad disk, a bug of an older version), is left out and
// reported, never thrown: one bad record must not stop its source for good (docs/persistence.md,
// "Unreadable records").

/** What came back from a stored text: the record, or why it is not one. */
export type Parsed<T> =
  { readonly value: T; readonly error?: undefined } | { readonly value?: undefined; readonly error: string };

export function parseSnapshot(text: string): Parsed<JsonObject> {
  return parseChecked(text, notAnObject);
}

export function parseHistoryEntry(text: string): Parsed<HistoryEntry> {
  return parseChecked(text, historyEntryFault);
}

/**
 * What is wrong with a parsed history entry, if anything: the fields the runtime relies on, by
 * role (not a full schema: kaiwa wrote these). For stores that parse whole pages of entries.
 */
export function historyEntryFault(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  switch (value.role) {
    case 'user':
      return typeof value.text === 'string' && typeof value.eventId === 'string'
        ? undefined
        : 'a user entry without its text or event id';
    case 'model':
      return Array.isArray(value.calls) ? undefined : 'a model entry without its calls';
    case 'tool':
      return Array.isArray(value.results) ? undefined : 'a tool entry without its results';
    default:
      return `not a history entry (role ${JSON.stringify(value.role)})`;
  }
}

/** The fields the runtime relies on (not a full schema: kaiwa wrote these). */
export function parseInboxItem(text: string): Parsed<InboxItem> {
  return parseChecked(text, inboxItemFault);
}

/** An inbox row as the port returns it: its item, or why its text is not one. */
export function storedInboxItem(row: {
  readonly key: string;
  readonly text: string;
  readonly attempts: number;
  readonly eventId?: string;
  /** Marked by an unsend accepted while it waited. */
  readonly takenBack?: boolean;
}): StoredInboxItem {
  const { key, attempts, eventId } = row;
  const { value: item, error } = parseInboxItem(row.text);
  if (error === undefined)
    return { key, item, attempts, ...(row.takenBack === true && { takenBack: true as const }) };
  return { key, unreadable: error, ...(eventId !== undefined && { eventId }), attempts };
}

/**
 * History rows newest first, parsed, with their stored size; they end at the first one that does
 * not read back, which goes into `unreadable` (history then starts after it).
 */
export function* readableHistory(
  newestFirst: Iterable<{ readonly seq: number; readonly text: string }>,
  unreadable: UnreadableRecord[],
) {
  for (const { seq, text } of newestFirst) {
    const { value: entry, error } = parseHistoryEntry(text);
    if (error !== undefined) {
      unreadable.push({ record: 'history', key: String(seq), error });
      return;
    }
    yield { seq, entry, bytes: Buffer.byteLength(text, 'utf8') };
  }
}

/** A stored profile as a list of none or one: one that does not read back is none. */
export function readProfile(text: string): StoredProfile[] {
  const { value } = parseChecked<StoredProfile>(text, (profile) =>
    isObject(profile) && typeof profile.userId === 'string' ? undefined : 'not a profile',
  );
  return value ? [value] : [];
}

function parseChecked<T>(text: string, fault: (value: unknown) => string | undefined): Parsed<T> {
  return readChecked(() => JSON.parse(text), fault);
}

/**
 * What `read` gives back, or why not: it threw (not JSON, not inflated), or `fault` says what
 * is wrong with the value's shape.
 * @example
 * readChecked(() => decompressJson(bytes), (value) => (Array.isArray(value) ? undefined : 'not a list'))
 */
export function readChecked<T>(
  read: () => unknown,
  fault: (value: unknown) => string | undefined,
): Parsed<T> {
  let value: unknown;
  try {
    value = read();
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const problem = fault(value);
  return problem === undefined ? { value: value as T } : { error: problem };
}

/** For `readChecked`: a JSON object, or a list. */
export const notAnObject = (value: unknown) => (isObject(value) ? undefined : 'not a JSON object');
export const notAList = (value: unknown) => (Array.isArray(value) ? undefined : 'not a list');

function inboxItemFault(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  const source = value.source;
  if (typeof value.eventId !== 'string' || !isObject(source) || typeof source.id !== 'string')
    return 'an inbox item without its event id or source';
  const kind = value.kind;
  if (kind !== undefined && kind !== 'message' && kind !== 'unsend' && kind !== 'forget')
    return `not an inbox item (kind ${JSON.stringify(kind)})`;
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
