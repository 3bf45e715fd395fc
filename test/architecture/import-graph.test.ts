import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  describeCycle,
  folderCycles,
  folderEdges,
  readImportGraph,
  transitiveImports,
  type ModuleImport,
} from '../../scripts/import-graph.js';

const root = path.resolve(import.meta.dirname, '../../src');
const graph = readImportGraph(root);
const relative = (modules: readonly string[]) => modules.map((module) => path.relative(root, module));

describe('the folders of src/', () => {
  it('import each other without a cycle, type-only imports included', () => {
    expect(folderEdges(graph).length).toBeGreaterThan(50); // the whole tree was read
    expect(folderCycles(graph).map(describeCycle)).toEqual([]);
  });

  it('keep aws/ off server/: the Lambda handlers and the local server share composition/', () => {
    const awsToServer = folderEdges(graph).filter((edge) => edge.from === 'aws' && edge.to === 'server');
    expect(awsToServer.flatMap((edge) => edge.because)).toEqual([]);
  });
});

describe('the conversation chart (machines/conversation-machine.ts)', () => {
  const chart = path.join(root, 'machines/conversation-machine.ts');

  it('loads only xstate, its own pure modules, the domain, the default values and the error base', () => {
    const loaded = transitiveImports(graph, chart, { runtimeOnly: true });
    const folders = new Set(relative(loaded.modules).map((module) => module.split(path.sep)[0]));
    expect([...folders].sort()).toEqual(['defaults', 'domain', 'errors', 'machines']);
    expect(loaded.packages).toEqual(['xstate']);
    // Was 23 modules with ajv and the weather tool, through the tools barrel; 19 since the
    // domain's JSON bounds (the webhook's and the model answer's) came through its barrel, 20
    // with its well-formed text (the same edges').
    expect(loaded.modules.length).toBeLessThanOrEqual(20);
  });

  it('reaches no tool registry, built-in tool, prompt or ajv, not even through its types', () => {
    const reached = transitiveImports(graph, chart);
    const modules = relative(reached.modules);
    expect(modules.filter((module) => /^(tools|prompt)\//.test(module))).toEqual([]);
    expect(reached.packages.filter((name) => name.startsWith('ajv'))).toEqual([]);
  });
});

describe('the import graph reader', () => {
  const fixtureRoots: string[] = [];
  afterAll(() => fixtureRoots.forEach((fixtureRoot) => rmSync(fixtureRoot, { recursive: true })));

  /** A small source tree on disk. */
  function fixtureTree(files: Record<string, string>): string {
    const fixtureRoot = mkdtempSync(path.join(tmpdir(), 'kaiwa-import-graph-'));
    fixtureRoots.push(fixtureRoot);
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(fixtureRoot, file)), { recursive: true });
      writeFileSync(path.join(fixtureRoot, file), text);
    }
    return fixtureRoot;
  }

  it('counts type-only imports, re-exports, import() and import types, and resolves .js and index', () => {
    const fixtureRoot = fixtureTree({
      'a/index.ts': "export { thing } from './thing.js';\nexport type { Shape } from '../c/shape.js';",
      'a/thing.ts': "import type { B } from '../b/index.js';\nexport const thing = (b: B) => b;",
      'b/index.ts':
        "export type B = import('../d/index.js').D;\nexport const load = () => import('../a/index.js');",
      'c/shape.ts': "import { z } from 'xstate';\nexport type Shape = typeof z;",
      'd/index.ts': "import type { Shape } from '../c/shape.js';\nexport type D = Shape;",
    });
    const fixture = readImportGraph(fixtureRoot);

    expect(relativeTo(fixtureRoot, fixture.modules.get(path.join(fixtureRoot, 'b/index.ts')))).toEqual([
      'd/index.ts (type)',
      'a/index.ts',
    ]);
    expect(fixture.packages.get(path.join(fixtureRoot, 'c/shape.ts'))).toEqual([
      { target: 'xstate', typeOnly: false },
    ]);
    expect(folderCycles(fixture).map(describeCycle)).toEqual([
      ['a → b → a', '  a → b: a/thing.ts → b/index.ts (type)', '  b → a: b/index.ts → a/index.ts'].join('\n'),
    ]);
    const entry = path.join(fixtureRoot, 'd/index.ts');
    expect(transitiveImports(fixture, entry).packages).toEqual(['xstate']);
    expect(transitiveImports(fixture, entry, { runtimeOnly: true }).modules).toEqual([entry]);
  });

  it('refuses an import it cannot resolve rather than leaving an edge out', () => {
    const fixtureRoot = fixtureTree({ 'a/index.ts': "import { gone } from '../b/gone.js';" });
    expect(() => readImportGraph(fixtureRoot)).toThrow("a/index.ts: cannot resolve '../b/gone.js'");
  });
});

function relativeTo(fixtureRoot: string, imports: readonly ModuleImport[] | undefined): string[] {
  return (imports ?? []).map(
    (item) => `${path.relative(fixtureRoot, item.target)}${item.typeOnly ? ' (type)' : ''}`,
  );
}
