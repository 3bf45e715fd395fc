import { readFile } from 'node:fs/promises';
import { isReminder, type Reminder } from './reminder.js';

/**
 * The reminders file of earlier releases, read once to import it into `reminders.db`: per source,
 * `{ "version": 2, "sources": { "<sourceId>": [reminder…] } }`. The first format, one list of every
 * chat's reminders with 8-character ids, is read too and kept whole: its ids stay as they were (a
 * user may have been told one), and they are unique within their source, which is all an id
 * needs to be now.
 */
export interface ReminderFile {
  readonly version: 2;
  readonly sources: Readonly<Record<string, readonly Reminder[]>>;
}

/** What was read, and in which format. */
export interface ReadReminders {
  readonly reminders: readonly Reminder[];
  readonly format: 1 | 2;
}

/** Reads the file; none is `undefined`. Anything else unreadable throws, naming the file. */
export async function readReminderFile(file: string): Promise<ReadReminders | undefined> {
  let content: unknown;
  try {
    content = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file} is not a reminders file: ${(error as Error).message}`, { cause: error });
  }
  if (Array.isArray(content)) return { reminders: checked(file, content), format: 1 };
  const current = content as Partial<ReminderFile> | null;
  if (current?.version !== 2 || typeof current.sources !== 'object' || current.sources === null) {
    throw new Error(`${file} is not a reminders file kaiwa knows (expected version 2)`);
  }
  const reminders = Object.entries(current.sources).flatMap(([sourceId, list]) => {
    const inSource = checked(file, Array.isArray(list) ? list : [list]);
    if (inSource.some((reminder) => reminder.source.id !== sourceId))
      throw new Error(`${file}: a reminder of another chat is listed under ${sourceId}`);
    return inSource;
  });
  return { reminders, format: 2 };
}

/** Kaiwa wrote this file: an entry that is not a reminder is damage to look at, never dropped. */
function checked(file: string, entries: readonly unknown[]): Reminder[] {
  const broken = entries.findIndex((entry) => !isReminder(entry));
  if (broken >= 0) throw new Error(`${file}: entry ${broken} is not a reminder`);
  return entries as Reminder[];
}
