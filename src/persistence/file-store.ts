import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { InboxItem } from '../domain/index.js';
import type { ConversationStore, SaveRequest, StoredConversation } from './conversation-store.js';
import { KeyedMutex } from './keyed-mutex.js';
import { VersionConflictError } from './version-conflict-error.js';

export interface FileStoreOptions {
  /** How long a claimed event id is remembered (ms); older claims are pruned at open. */
  claimTtlMs?: number;
  now?: () => number;
}

// One mutex per directory, shared by every FileStore on it in this process.
const mutexes = new Map<string, KeyedMutex>();

/**
 * The embedded store of `npm start`: one JSON file per conversation (written to a temporary
 * file, then renamed, so a crash never leaves half a file), one file per inbox message, and
 * one exclusive-create file per claimed event id. Made for one process.
 *
 * Layout: `conversations/<source>.json`, `inbox/<source>/<seq>-<event>.json`, `claims/<event>`.
 */
export class FileStore implements ConversationStore {
  private readonly mutex: KeyedMutex;
  private readonly now: () => number;
  private readonly claimTtlMs: number;
  private sequence = 0;

  private constructor(
    private readonly directory: string,
    options: FileStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.claimTtlMs = options.claimTtlMs ?? 7 * 24 * 3600_000;
    const resolved = path.resolve(directory);
    let mutex = mutexes.get(resolved);
    if (!mutex) mutexes.set(resolved, (mutex = new KeyedMutex()));
    this.mutex = mutex;
  }

  /** Creates the directories and prunes expired claims. */
  static async open(directory: string, options: FileStoreOptions = {}): Promise<FileStore> {
    const store = new FileStore(directory, options);
    await Promise.all(
      ['conversations', 'inbox', 'claims'].map((dir) =>
        mkdir(path.join(directory, dir), { recursive: true }),
      ),
    );
    await store.pruneClaims();
    return store;
  }

  async accept(message: InboxItem): Promise<boolean> {
    // Inbox first, then the claim: a crash in between leaves an unclaimed message that a
    // redelivery completes (the actor ignores an event id it has seen), never a lost one.
    if (await exists(this.claimFile(message.eventId))) return false;
    const inboxDir = this.inboxDir(message.source.id);
    await mkdir(inboxDir, { recursive: true });
    // A unique name: on a lost claim race, the file removed below is this call's own.
    const file = path.join(inboxDir, `${this.sequenceKey()}-${hash(message.eventId)}.json`);
    await writeAtomically(file, JSON.stringify(message));
    try {
      await writeFile(this.claimFile(message.eventId), String(this.now()), { flag: 'wx' });
      return true;
    } catch (error) {
      await rm(file, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }

  async inbox(sourceId: string): Promise<InboxItem[]> {
    const files = await listFiles(this.inboxDir(sourceId));
    const messages = await Promise.all(
      files.sort().map(async (file) => {
        try {
          return JSON.parse(await readFile(path.join(this.inboxDir(sourceId), file), 'utf8')) as InboxItem;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // consumed meanwhile
          throw error;
        }
      }),
    );
    return messages.filter((message) => message !== undefined);
  }

  async load(sourceId: string): Promise<StoredConversation | undefined> {
    try {
      return JSON.parse(await readFile(this.conversationFile(sourceId), 'utf8')) as StoredConversation;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  save(request: SaveRequest): Promise<number> {
    return this.mutex.run(request.sourceId, async () => {
      const currentVersion = (await this.load(request.sourceId))?.version ?? 0;
      if (currentVersion !== request.expectedVersion) {
        throw new VersionConflictError(request.sourceId, request.expectedVersion, currentVersion);
      }
      const record: StoredConversation = {
        sourceId: request.sourceId,
        version: currentVersion + 1,
        machineVersion: request.machineVersion,
        snapshot: request.snapshot,
        busy: request.busy,
        updatedAt: this.now(),
      };
      await writeAtomically(this.conversationFile(request.sourceId), JSON.stringify(record));
      // After the conversation: a crash here leaves consumed messages that the actor ignores.
      if (request.consumedEventIds.length > 0) {
        const consumed = new Set(request.consumedEventIds.map(hash));
        const inboxDir = this.inboxDir(request.sourceId);
        const files = await listFiles(inboxDir);
        await Promise.all(
          files
            .filter((file) => consumed.has(file.slice(file.lastIndexOf('-') + 1, -'.json'.length)))
            .map((file) => rm(path.join(inboxDir, file), { force: true })),
        );
      }
      return record.version;
    });
  }

  async sourcesWithWork(): Promise<string[]> {
    const withInbox: string[] = [];
    for (const dir of await listFiles(path.join(this.directory, 'inbox'))) {
      if ((await listFiles(path.join(this.directory, 'inbox', dir))).length > 0)
        withInbox.push(decodeURIComponent(dir));
    }
    const busy: string[] = [];
    for (const sourceId of await this.listConversationIds()) {
      if ((await this.load(sourceId))?.busy) busy.push(sourceId);
    }
    return [...new Set([...withInbox, ...busy])];
  }

  async listSources(): Promise<string[]> {
    return this.listConversationIds();
  }

  deleteSource(sourceId: string): Promise<void> {
    return this.mutex.run(sourceId, async () => {
      await rm(this.conversationFile(sourceId), { force: true });
      await rm(this.inboxDir(sourceId), { recursive: true, force: true });
    });
  }

  private async listConversationIds(): Promise<string[]> {
    const files = await listFiles(path.join(this.directory, 'conversations'));
    return files
      .filter((file) => file.endsWith('.json'))
      .map((file) => decodeURIComponent(file.slice(0, -5)));
  }

  private async pruneClaims() {
    const dir = path.join(this.directory, 'claims');
    const cutoff = this.now() - this.claimTtlMs;
    for (const file of await listFiles(dir)) {
      const info = await stat(path.join(dir, file));
      if (info.mtimeMs < cutoff) await rm(path.join(dir, file), { force: true });
    }
  }

  /** Sorts by time, then by order within this store; the random part keeps names unique across stores. */
  private sequenceKey(): string {
    this.sequence = (this.sequence + 1) % 1_000_000_000;
    const unique = randomBytes(4).toString('hex');
    return `${String(this.now()).padStart(15, '0')}-${String(this.sequence).padStart(9, '0')}${unique}`;
  }

  private conversationFile(sourceId: string) {
    return path.join(this.directory, 'conversations', `${encodeURIComponent(sourceId)}.json`);
  }

  private inboxDir(sourceId: string) {
    return path.join(this.directory, 'inbox', encodeURIComponent(sourceId));
  }

  private claimFile(eventId: string) {
    return path.join(this.directory, 'claims', hash(eventId));
  }
}

function hash(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}

async function writeAtomically(file: string, content: string) {
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, file);
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

async function listFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((file) => !file.endsWith('.tmp'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
