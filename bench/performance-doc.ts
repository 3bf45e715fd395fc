import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const FILE = path.join(import.meta.dirname, '..', 'docs', 'PERFORMANCE.md');

/**
 * Replaces one benchmark's section of docs/PERFORMANCE.md — the text between `<!-- name -->`
 * and `<!-- /name -->`, markers included in `section` — or appends it. Each benchmark owns
 * its section, so running one leaves the others' figures as they were measured.
 */
export async function updatePerformanceSection(name: string, section: string): Promise<void> {
  const start = `<!-- ${name} -->`;
  const end = `<!-- /${name} -->`;
  const current = await readFile(FILE, 'utf8').catch(() => '# Performance\n');
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? `${current.slice(0, from)}${section}${current.slice(to + end.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  await writeFile(FILE, next);
}

/**
 * The current text of one benchmark's section (markers included), or '' when there is none: for
 * a report that rewrites the whole file but must keep the figures another benchmark measured.
 */
export async function existingPerformanceSection(name: string): Promise<string> {
  const current = await readFile(FILE, 'utf8').catch(() => '');
  const start = current.indexOf(`<!-- ${name} -->`);
  const endMarker = `<!-- /${name} -->`;
  const end = current.indexOf(endMarker);
  return start >= 0 && end > start ? current.slice(start, end + endMarker.length) : '';
}
