import { appendFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setMostRecent } from '../domain/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import { OneAtATime } from '../timing/index.js';
import type { JournalBounds, JournalEntry, JournalStore } from './journal-store.js';

const JOURNAL_SUFFIX = '.jsonl';

/**
 * Journals as JSON lines, one file per source: `<dir>/<source>.jsonl`. Appends are cheap; a
 * file that grows past twice the limit is rewritten with its newest `limit` entries (to a
 * temporary file, then renamed). A line torn by a crash is skipped when read. By default it
 * keeps 500 entries for each of the 1,000 sources written most recently (at most about 400 MB):
 * the first write after a start finds the journals on disk by their age and removes the oldest
 * beyond that, and each later write that brings in a new source removes the oldest then.
 */
export class FileJournalStore implements JournalStore {
  /** Sources with a journal file, least recently written first; their line count once known. */
  private readonly files = new Map<string, number | undefined>();
  /** One operation at a time per source, in call order. */
  private readonly perSource = new OneAtATime();
  private readonly bounds: JournalBounds;
  private readonly logger: Logger;
  /** The journals on disk, found on the first write; resolves with their removals beyond the bound. */
  private found: Promise<Promise<void>[]> | undefined;

  constructor(
    private readonly directory: string,
    options: Partial<JournalBounds> & { readonly logger?: Logger } = {},
  ) {
    this.bounds = {
      entriesPerSource: options.entriesPerSource ?? 500,
      sources: options.sources ?? 1_000,
    };
    this.logger = options.logger ?? silentLogger;
  }

  async append(sourceId: string, entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    // Awaited outside the source's turn: a removal waits for the turn of the source it removes.
    const removals = await this.perSource.run(sourceId, async () => {
      this.found ??= this.findJournals().catch((error: unknown) => {
        this.found = undefined;
        throw error;
      });
      const beyondBound = await this.found;
      const file = this.file(sourceId);
      let count = this.files.get(sourceId);
      let separator = '';
      if (count === undefined) {
        const text = await this.readText(sourceId);
        count = lines(text).length;
        // A line torn by a crash is closed first, so it cannot swallow the next entry.
        if (text !== '' && !text.endsWith('\n')) separator = '\n';
      }
      await appendFile(file, separator + entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
      let total = count + entries.length;
      if (total > this.bounds.entriesPerSource * 2) {
        const kept = (await this.readLines(sourceId)).slice(-this.bounds.entriesPerSource);
        const temporary = `${file}.${process.pid}.tmp`;
        await writeFile(temporary, kept.map((line) => `${line}\n`).join(''));
        await rename(temporary, file);
        total = kept.length;
      }
      return [
        ...beyondBound,
        ...setMostRecent(this.files, sourceId, total, this.bounds.sources).map((oldest) =>
          this.removeUnlessWritten(oldest),
        ),
      ];
    });
    await Promise.all(removals);
  }

  read(sourceId: string): Promise<JournalEntry[]> {
    return this.perSource.run(sourceId, async () => {
      const entries: JournalEntry[] = [];
      for (const line of await this.readLines(sourceId)) {
        try {
          entries.push(JSON.parse(line) as JournalEntry);
        } catch {
          // A line cut short by a crash: the rest of the journal still replays.
        }
      }
      return entries.slice(-this.bounds.entriesPerSource);
    });
  }

  delete(sourceId: string): Promise<void> {
    return this.perSource.run(sourceId, async () => {
      await rm(this.file(sourceId), { force: true });
      this.files.delete(sourceId);
    });
  }

  /**
   * The journals already on disk, oldest first by modification time, kept to the bound; and the
   * temporary files of a compaction a crash cut short (the journal itself is whole).
   */
  private async findJournals(): Promise<Promise<void>[]> {
    await mkdir(this.directory, { recursive: true });
    const names = await readdir(this.directory);
    await Promise.all(
      names
        .filter((name) => name.endsWith('.tmp'))
        .map((name) => rm(path.join(this.directory, name), { force: true })),
    );
    const journals = await Promise.all(
      names.flatMap((name) => {
        const sourceId = sourceIdOf(name);
        if (sourceId === undefined) return [];
        // Deleted meanwhile: nothing to keep.
        return stat(path.join(this.directory, name)).then(
          ({ mtimeMs }) => [{ sourceId, mtimeMs }],
          () => [],
        );
      }),
    );
    return journals
      .flat()
      .sort((a, b) => a.mtimeMs - b.mtimeMs)
      .flatMap(({ sourceId }) => setMostRecent(this.files, sourceId, undefined, this.bounds.sources))
      .map((oldest) => this.removeUnlessWritten(oldest));
  }

  /**
   * Removes a journal that left the bound, in its source's turn, unless a write queued before
   * brought it back. Never rejects: a file left behind is found again at the next start.
   */
  private removeUnlessWritten(sourceId: string): Promise<void> {
    return this.perSource
      .run(sourceId, async () => {
        if (!this.files.has(sourceId)) await rm(this.file(sourceId), { force: true });
      })
      .catch((error: unknown) => {
        this.logger.warn('transition journal beyond the bound could not be removed', { error, sourceId });
      });
  }

  private async readLines(sourceId: string): Promise<string[]> {
    return lines(await this.readText(sourceId));
  }

  private async readText(sourceId: string): Promise<string> {
    try {
      return await readFile(this.file(sourceId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw error;
    }
  }

  private file(sourceId: string): string {
    return path.join(this.directory, `${encodeURIComponent(sourceId)}${JOURNAL_SUFFIX}`);
  }
}

/** The source a journal file is named after; undefined for a file this store did not name. */
function sourceIdOf(name: string): string | undefined {
  if (!name.endsWith(JOURNAL_SUFFIX)) return undefined;
  try {
    const sourceId = decodeURIComponent(name.slice(0, -JOURNAL_SUFFIX.length));
    return `${encodeURIComponent(sourceId)}${JOURNAL_SUFFIX}` === name ? sourceId : undefined;
  } catch {
    return undefined;
  }
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}
