// `npm run chart`: draws the conversation machine from its definition and writes it under docs/
// as Mermaid, SVG and a Stately-importable JSON config. test/inspect/chart-drift.test.ts fails
// when the committed files differ from what this produces.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import { exportChart } from '../src/inspect/index.js';
import { conversationMachine } from '../src/machines/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The files `npm run chart` writes, by path from the repository root. */
export async function chartFiles(): Promise<Record<string, string>> {
  const chart = await exportChart(conversationMachine);
  // Formatted as `prettier --check .` expects, so the lint stays green.
  const options = (await prettier.resolveConfig(path.join(root, 'docs/conversation-machine.json'))) ?? {};
  const json = await prettier.format(JSON.stringify(chart.stately), { ...options, parser: 'json' });
  return {
    'docs/conversation-machine.mmd': chart.mermaid,
    'docs/conversation-machine.svg': chart.svg,
    'docs/conversation-machine.json': json,
  };
}

async function main() {
  for (const [file, content] of Object.entries(await chartFiles())) {
    const target = path.join(root, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
    process.stdout.write(`wrote ${file}\n`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`chart: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
