import { appendFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { JournalEntry, JournalStore } from './journal-store.js';

/**
 * Journals as JSON lines, one file per source: `<dir>/<source>.jsonl`. Appends are cheap; a
 * file that grows past twice the limit is rewritten with its newest `limit` entries (to a
 * temporary file, then renamed). A line torn by a crash is skipped when read.
 */
export class FileJournalStore implements JournalStore {
  private readonly lineCounts = new Map<string, number>();
  private readonly queues = new Map<string, Promise<void>>();
  private directoryReady: Promise<unknown> | undefined;

  constructor(
    private readonly directory: string,
    private readonly limit = 500,
  ) {}

  append(sourceId: string, entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return this.serialised(sourceId, async () => {
      this.directoryReady ??= mkdir(this.directory, { recursive: true }).catch((error: unknown) => {
        this.directoryReady = undefined;
        throw error;
      });
      await this.directoryReady;
      const file = this.file(sourceId);
      let count = this.lineCounts.get(sourceId);
      let separator = '';
      if (count === undefined) {
        const text = await this.readText(sourceId);
        count = lines(text).length;
        // A line torn by a crash is closed first, so it cannot swallow the next entry.
        if (text !== '' && !text.endsWith('\n')) separator = '\n';
      }
      await appendFile(file, separator + entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
      let total = count + entries.length;
      if (total > this.limit * 2) {
        const kept = (await this.readLines(sourceId)).slice(-this.limit);
        const temporary = `${file}.${process.pid}.tmp`;
        await writeFile(temporary, kept.map((line) => `${line}\n`).join(''));
        await rename(temporary, file);
        total = kept.length;
      }
      this.lineCounts.set(sourceId, total);
    });
  }

  read(sourceId: string): Promise<JournalEntry[]> {
    return this.serialised(sourceId, async () => {
      const entries: JournalEntry[] = [];
      for (const line of await this.readLines(sourceId)) {
        try {
          entries.push(JSON.parse(line) as JournalEntry);
        } catch {
          // A line cut short by a crash: the rest of the journal still replays.
        }
      }
      return entries.slice(-this.limit);
    });
  }

  delete(sourceId: string): Promise<void> {
    return this.serialised(sourceId, async () => {
      await rm(this.file(sourceId), { force: true });
      this.lineCounts.delete(sourceId);
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

  /** One operation at a time per source, in call order. */
  private serialised<T>(sourceId: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(sourceId) ?? Promise.resolve();
    const result = previous.then(operation);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(sourceId, settled);
    void settled.then(() => {
      if (this.queues.get(sourceId) === settled) this.queues.delete(sourceId);
    });
    return result;
  }

  private file(sourceId: string): string {
    return path.join(this.directory, `${encodeURIComponent(sourceId)}.jsonl`);
  }
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}
