import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeCycle,
  folderCycles,
  folderEdges,
  readImportGraph,
  transitiveImports,
} from '../../scripts/import-graph.js';

const root = path.resolve(import.meta.dirname, '../../src');
const graph = readImportGraph(root);
const relative = (modules: readonly string[]) => modules.map((module) => path.relative(root, module));

describe('the folders of src/', () => {
  it('import each other without a cycle, type-only imports included', () => {
    expect(folderCycles(graph).map(describeCycle)).toEqual([]);
  });

  it('keep aws/ off server/: the Lambda handlers and the local server share composition/', () => {
    const awsToServer = folderEdges(graph).filter((edge) => edge.from === 'aws' && edge.to === 'server');
    expect(awsToServer.flatMap((edge) => edge.because)).toEqual([]);
  });
});

describe('the conversation chart (machines/conversation-machine.ts)', () => {
  const chart = path.join(root, 'machines/conversation-machine.ts');

  it('loads only xstate, its own pure modules and the domain', () => {
    const loaded = transitiveImports(graph, chart, { runtimeOnly: true });
    const folders = new Set(relative(loaded.modules).map((module) => module.split(path.sep)[0]));
    expect([...folders].sort()).toEqual(['domain', 'machines']);
    expect(loaded.packages).toEqual(['xstate']);
    // Was 23 modules with ajv and the weather tool, through the tools barrel.
    expect(loaded.modules.length).toBeLessThanOrEqual(16);
  });

  it('reaches no tool registry, built-in tool, prompt or ajv, not even through its types', () => {
    const reached = transitiveImports(graph, chart);
    const modules = relative(reached.modules);
    expect(modules.filter((module) => /^(tools|prompt)\//.test(module))).toEqual([]);
    expect(reached.packages.filter((name) => name.startsWith('ajv'))).toEqual([]);
  });
});

describe('the import graph reader', () => {
  it('sees type-only imports, re-exports and dynamic imports, and resolves .js to .ts', () => {
    const persistence = graph.modules.get(path.join(root, 'persistence/index.ts')) ?? [];
    expect(persistence.length).toBeGreaterThan(0);
    expect(persistence.every((item) => item.target.endsWith('.ts'))).toBe(true);
    const anyTypeOnly = [...graph.modules.values()].flat().some((item) => item.typeOnly);
    expect(anyTypeOnly).toBe(true);
  });
});
