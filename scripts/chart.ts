// `npm run chart`: draws the conversation machine and the source lifecycle machine from their
// definitions and writes them under docs/ as Mermaid, SVG and a Stately-importable JSON config.
// test/inspect/chart-export.test.ts fails when the committed files differ from what this produces.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import type { AnyStateMachine } from 'xstate';
import { sourceMachine } from '../src/actors/index.js';
import { exportChart } from '../src/inspect/index.js';
import { conversationMachine } from '../src/machines/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The machines `npm run chart` draws, by the name of their files under docs/. */
const machines: Record<string, AnyStateMachine> = {
  'conversation-machine': conversationMachine,
  'source-machine': sourceMachine,
};

/** The files `npm run chart` writes, by path from the repository root. */
export async function chartFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const [name, machine] of Object.entries(machines)) {
    const chart = await exportChart(machine);
    // Formatted as `prettier --check .` expects, so the lint stays green.
    const options = (await prettier.resolveConfig(path.join(root, `docs/${name}.json`))) ?? {};
    files[`docs/${name}.mmd`] = chart.mermaid;
    files[`docs/${name}.svg`] = chart.svg;
    files[`docs/${name}.json`] = await prettier.format(JSON.stringify(chart.stately), {
      ...options,
      parser: 'json',
    });
  }
  return files;
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
