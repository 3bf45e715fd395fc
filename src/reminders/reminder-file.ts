import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Reminder } from './reminder.js';

/**
 * The local reminders file, per source: `{ "version": 2, "sources": { "<sourceId>": [reminder…] } }`.
 * The first format, one list of every chat's reminders with 8-character ids, is read too and
 * kept whole: its ids stay as they were (a user may have been told one), and they are unique
 * within their source, which is all an id needs to be now.
 */
export interface ReminderFile {
  readonly version: 2;
  readonly sources: Readonly<Record<string, readonly Reminder[]>>;
}

/** What was read, and whether the file holds the first format (so it is rewritten). */
export interface ReadReminders {
  readonly reminders: readonly Reminder[];
  readonly migrated: boolean;
}

/** Reads the file; none yet is no reminders. Anything else unreadable throws, naming the file. */
export async function readReminderFile(file: string): Promise<ReadReminders> {
  let content: unknown;
  try {
    content = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { reminders: [], migrated: false };
    throw new Error(`${file} is not a reminders file: ${(error as Error).message}`, { cause: error });
  }
  if (Array.isArray(content)) return { reminders: checked(file, content), migrated: true };
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
  return { reminders, migrated: false };
}

/** Kaiwa wrote this file: an entry that is not a reminder is damage to look at, never dropped. */
function checked(file: string, entries: readonly unknown[]): Reminder[] {
  const broken = entries.findIndex((entry) => !isReminder(entry));
  if (broken >= 0) throw new Error(`${file}: entry ${broken} is not a reminder`);
  return entries as Reminder[];
}

/** Writes every waiting reminder, grouped by source, atomically (temporary file + rename). */
export async function writeReminderFile(file: string, reminders: Iterable<Reminder>): Promise<void> {
  const sources: Record<string, Reminder[]> = {};
  for (const reminder of reminders) (sources[reminder.source.id] ??= []).push(reminder);
  const content: ReminderFile = { version: 2, sources };
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(content));
  await rename(temporary, file);
}

function isReminder(value: unknown): value is Reminder {
  const reminder = value as Partial<Reminder> | null;
  return (
    typeof reminder?.id === 'string' &&
    typeof reminder.source?.id === 'string' &&
    typeof reminder.dueAt === 'number' &&
    typeof reminder.text === 'string'
  );
}
