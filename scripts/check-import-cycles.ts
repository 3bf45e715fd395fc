// `npm run lint` runs this: fails when the folders of src/ import each other in a cycle, type-only
// imports included, and prints each cycle with the imports that make it. docs/architecture.md
// says which way the folders depend on each other.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCycle, folderCycles, readImportGraph } from './import-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
const graph = readImportGraph(root);
const cycles = folderCycles(graph);
if (cycles.length > 0) {
  console.error(`src/ has ${cycles.length} folder import cycle(s):\n`);
  for (const cycle of cycles) console.error(`${describeCycle(cycle)}\n`);
  process.exit(1);
}
console.log(`src/: ${graph.modules.size} modules, no folder import cycle`);
