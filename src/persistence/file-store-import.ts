import { access, mkdir, readdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { isJsonObject, type HistoryEntry, type InboxItem, type JsonObject } from '../domain/index.js';
import type { FirstWaveConversation } from './first-wave-conversation.js';

// The one-time import of the first wave's directory store (`FileStore`: conversations/<id>.json,
// inbox/<id>/<order>-<hash>.json, claims/<hash>) into a new SQLite database (docs/persistence.md).

/** The folders of the first-wave layout, moved aside together once imported. */
const OLD_FOLDERS = ['conversations', 'inbox', 'claims'] as const;
const IMPORT_KEY = 'file-store-import';

/** What an import brought in. */
export interface FileStoreImport {
  readonly conversations: number;
  readonly historyEntries: number;
  readonly inboxItems: number;
  readonly claims: number;
  /** Files that could not be read (relative to the old folder); left there, not imported. */
  readonly skipped: readonly string[];
  /** Where the old folders are now. */
  readonly movedTo: string;
}

/** One first-wave conversation, split into the v2 shape. */
export interface SplitConversation {
  readonly sourceId: string;
  readonly version: number;
  readonly machineVersion: number;
  readonly busy: boolean;
  readonly updatedAt: number;
  /** The snapshot without history, settings and profiles; its queued messages moved to the inbox. */
  readonly snapshot: JsonObject;
  /** `seq` 1..n, oldest first. */
  readonly history: readonly HistoryEntry[];
  readonly profiles: readonly { userId: string; displayName?: string; fetchedAt: number }[];
  /** Messages the snapshot had queued: they go back to the inbox, ahead of the old inbox files. */
  readonly queued: readonly InboxItem[];
  /** Event ids the conversation has taken in: claimed, so a late redelivery is still refused. */
  readonly seenEventIds: readonly string[];
}

/**
 * Imports `directory` when it holds the first-wave layout and the database is new, in one
 * transaction, then moves the old folders aside to `<directory>/file-store-imported` (kept,
 * never deleted). An import whose move was interrupted is completed. Returns undefined when
 * there was nothing to import.
 */
export async function importFileStore(
  directory: string,
  database: DatabaseSync,
  now: number,
  claimTtlMs: number,
): Promise<FileStoreImport | undefined> {
  const present = await presentFolders(directory);
  const done = database.prepare('SELECT value FROM meta WHERE key = ?').get(IMPORT_KEY) as
    { value: string } | undefined;
  if (done) {
    if (present.length > 0)
      await moveAside(directory, present, (JSON.parse(done.value) as FileStoreImport).movedTo);
    return undefined;
  }
  if (present.length === 0 || !isEmpty(database)) return undefined;

  const skipped: string[] = [];
  const conversations = await readConversations(directory, skipped);
  const inboxes = await readInboxes(directory, skipped);
  const movedTo = await freeName(path.join(directory, 'file-store-imported'));
  const summary = writeImport(database, conversations, inboxes, { now, claimTtlMs, skipped, movedTo });
  await moveAside(directory, present, movedTo);
  return summary;
}

/** Splits a first-wave conversation: the head, its history entries, profiles and queued messages. */
export function splitConversation(stored: FirstWaveConversation): SplitConversation {
  const { snapshot } = stored;
  const context = isJsonObject(snapshot.context) ? snapshot.context : {};
  const { history, settings: _settings, profiles, pending, ...rest } = context;
  const entries = (Array.isArray(history) ? history : []) as unknown as HistoryEntry[];
  const queued = (Array.isArray(pending) ? pending.flat() : []) as unknown as InboxItem[];
  const recent = Array.isArray(context.recentEventIds) ? context.recentEventIds : [];
  const seenEventIds = [
    ...recent.filter((id): id is string => typeof id === 'string'),
    ...entries.flatMap((entry) => (entry.role === 'user' ? [entry.eventId] : [])),
  ];
  return {
    sourceId: stored.sourceId,
    version: stored.version,
    machineVersion: stored.machineVersion,
    busy: stored.busy,
    updatedAt: stored.updatedAt,
    snapshot: { ...snapshot, context: { ...rest, ...(pending !== undefined && { pending: [] }) } },
    history: entries,
    profiles: Object.entries(isJsonObject(profiles) ? profiles : {}).flatMap(([userId, value]) =>
      isJsonObject(value) && typeof value.fetchedAt === 'number'
        ? [
            {
              userId,
              fetchedAt: value.fetchedAt,
              ...(typeof value.displayName === 'string' && { displayName: value.displayName }),
            },
          ]
        : [],
    ),
    queued,
    seenEventIds: [...new Set(seenEventIds)],
  };
}

function writeImport(
  database: DatabaseSync,
  conversations: readonly SplitConversation[],
  inboxes: ReadonlyMap<string, readonly InboxItem[]>,
  options: { now: number; claimTtlMs: number; skipped: readonly string[]; movedTo: string },
): FileStoreImport {
  const insertHead = database.prepare(
    `INSERT INTO heads (source_id, version, fence, machine_version, snapshot, last_seq, busy, updated_at)
     VALUES (?, ?, 0, ?, ?, ?, ?, ?)`,
  );
  const insertHistory = database.prepare('INSERT INTO history (source_id, seq, entry) VALUES (?, ?, ?)');
  const insertInbox = database.prepare('INSERT INTO inbox (source_id, event_id, item) VALUES (?, ?, ?)');
  const insertProfile = database.prepare(
    'INSERT INTO profiles (source_id, user_id, profile) VALUES (?, ?, ?)',
  );
  const insertClaim = database.prepare('INSERT OR IGNORE INTO claims (event_id, expires_at) VALUES (?, ?)');
  const claims = new Set<string>();
  let historyEntries = 0;
  let inboxItems = 0;

  database.exec('BEGIN IMMEDIATE');
  try {
    const bySource = new Map(conversations.map((conversation) => [conversation.sourceId, conversation]));
    for (const conversation of conversations) {
      const { sourceId } = conversation;
      insertHead.run(
        sourceId,
        conversation.version,
        conversation.machineVersion,
        JSON.stringify(conversation.snapshot),
        conversation.history.length,
        conversation.busy ? 1 : 0,
        conversation.updatedAt,
      );
      conversation.history.forEach((entry, index) =>
        insertHistory.run(sourceId, index + 1, JSON.stringify(entry)),
      );
      historyEntries += conversation.history.length;
      for (const profile of conversation.profiles) {
        insertProfile.run(sourceId, profile.userId, JSON.stringify(profile));
      }
    }
    for (const sourceId of new Set([...bySource.keys(), ...inboxes.keys()])) {
      const conversation = bySource.get(sourceId);
      // The snapshot ignored an inbox file it had taken in already (a crash between its save and
      // the file's removal): so does the import.
      const taken = new Set(conversation?.seenEventIds);
      const notTaken = (inboxes.get(sourceId) ?? []).filter((item) => !taken.has(item.eventId));
      for (const item of [...(conversation?.queued ?? []), ...notTaken]) {
        if (claims.has(item.eventId)) continue;
        insertInbox.run(sourceId, item.eventId, JSON.stringify(item));
        claims.add(item.eventId);
        inboxItems++;
      }
      for (const eventId of taken) claims.add(eventId);
    }
    // The old claims are hashes of event ids: the ids the data still names are claimed anew.
    for (const eventId of claims) insertClaim.run(eventId, options.now + options.claimTtlMs);
    const summary: FileStoreImport = {
      conversations: conversations.length,
      historyEntries,
      inboxItems,
      claims: claims.size,
      skipped: options.skipped,
      movedTo: options.movedTo,
    };
    database.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(IMPORT_KEY, JSON.stringify(summary));
    database.exec('COMMIT');
    return summary;
  } catch (error) {
    database.exec('ROLLBACK');
    throw error;
  }
}

async function readConversations(directory: string, skipped: string[]): Promise<SplitConversation[]> {
  const folder = path.join(directory, 'conversations');
  const conversations: SplitConversation[] = [];
  for (const file of (await listFiles(folder)).filter((name) => name.endsWith('.json'))) {
    const stored = await readJson(path.join(folder, file));
    if (isFirstWaveConversation(stored)) conversations.push(splitConversation(stored));
    else skipped.push(path.join('conversations', file));
  }
  return conversations;
}

/** Each source's inbox files in their order (the names sort by time, then arrival). */
async function readInboxes(directory: string, skipped: string[]): Promise<Map<string, InboxItem[]>> {
  const folder = path.join(directory, 'inbox');
  const inboxes = new Map<string, InboxItem[]>();
  for (const entry of await listEntries(folder)) {
    const sourceFolder = entry.name;
    if (!entry.isDirectory()) {
      // A file in the inbox root: what a malformed source id made the old store write.
      skipped.push(path.join('inbox', sourceFolder));
      continue;
    }
    for (const file of (await listFiles(path.join(folder, sourceFolder))).sort()) {
      const item = await readJson(path.join(folder, sourceFolder, file));
      if (!isInboxItem(item)) {
        skipped.push(path.join('inbox', sourceFolder, file));
        continue;
      }
      // The item names its source; the folder name is only where the old store put it.
      const items = inboxes.get(item.source.id) ?? [];
      items.push(item);
      inboxes.set(item.source.id, items);
    }
  }
  return inboxes;
}

function isFirstWaveConversation(value: unknown): value is FirstWaveConversation {
  const stored = value as Partial<FirstWaveConversation> | undefined;
  return (
    typeof stored === 'object' &&
    stored !== null &&
    typeof stored.sourceId === 'string' &&
    typeof stored.version === 'number' &&
    isJsonObject(stored.snapshot)
  );
}

function isInboxItem(value: unknown): value is InboxItem {
  const item = value as Partial<InboxItem> | undefined;
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof item.eventId === 'string' &&
    typeof item.source === 'object' &&
    typeof item.source.id === 'string'
  );
}

function isEmpty(database: DatabaseSync): boolean {
  return database.prepare('SELECT 1 FROM heads UNION ALL SELECT 1 FROM inbox LIMIT 1').get() === undefined;
}

async function presentFolders(directory: string): Promise<string[]> {
  const present: string[] = [];
  for (const folder of OLD_FOLDERS) if (await exists(path.join(directory, folder))) present.push(folder);
  return present;
}

async function moveAside(directory: string, folders: readonly string[], target: string) {
  await mkdir(target, { recursive: true });
  for (const folder of folders) await rename(path.join(directory, folder), path.join(target, folder));
}

async function freeName(base: string): Promise<string> {
  for (let suffix = 1; ; suffix++) {
    const candidate = suffix === 1 ? base : `${base}-${suffix}`;
    if (!(await exists(candidate))) return candidate;
  }
}

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

async function listFiles(folder: string): Promise<string[]> {
  return (await listEntries(folder)).filter((entry) => entry.isFile()).map((entry) => entry.name);
}

/** A folder's entries, without the old store's temporary files; none for a missing folder. */
async function listEntries(folder: string) {
  try {
    return (await readdir(folder, { withFileTypes: true })).filter((entry) => !entry.name.endsWith('.tmp'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
