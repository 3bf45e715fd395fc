import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Comments give their reasons by pointing at docs/, which ships with the code; a citation of
// a document outside the repository tells a reader nothing.
const OUTSIDE_CITATION = /\bseeds?\s*0\d\d\b|\bADR-\d/i;
const DOCS_CITATION = /\bdocs\/[\w./-]+\.(?:md|json|mmd|svg)\b/g;

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true });
  return entries
    .map((entry) => path.join(folder, entry))
    .filter((file) => /\.(?:ts|js|md|ya?ml|html|css)$/.test(file) && !file.includes('node_modules'));
}

const sources = async () => [
  ...(await filesUnder('src')),
  ...(await filesUnder('test')),
  ...(await filesUnder('bench')),
  ...(await filesUnder('scripts')),
  ...(await filesUnder('docs')),
  'README.md',
];

describe('citations', () => {
  it('cite docs/, never documents that are not in the repository', async () => {
    const found: string[] = [];
    for (const file of await sources()) {
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (OUTSIDE_CITATION.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('point at files that exist', async () => {
    const missing: string[] = [];
    for (const file of await sources()) {
      for (const [cited] of (await readFile(file, 'utf8')).matchAll(DOCS_CITATION)) {
        if (!existsSync(cited)) missing.push(`${file}: ${cited}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the check sees an outside citation', () => {
    // Assembled, so this file does not hold what it looks for.
    const cite = (...parts: string[]) => parts.join('');
    expect(OUTSIDE_CITATION.test(cite('the reply rules of se', 'ed 000'))).toBe(true);
    expect(OUTSIDE_CITATION.test(cite('(se', 'eds 002–004)'))).toBe(true);
    expect(OUTSIDE_CITATION.test(cite('AD', 'R-002 phase 2'))).toBe(true);
    expect(OUTSIDE_CITATION.test("'elk.randomSeed': '1'")).toBe(false);
  });
});
