// The import graph of src/, read with the TypeScript compiler's own pre-processor, so
// `import type`, `export … from` and `import()` all count (a type-only import still ties two
// folders together for a reader and for the compiler). Used by scripts/check-import-cycles.ts
// (`npm run lint`) and test/architecture/import-graph.test.ts; docs/architecture.md explains
// the layering it keeps.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One import of a module: what it names and whether only types come through it. */
export interface ModuleImport {
  /** An absolute path inside the tree, or a package name (`xstate`, `@google/genai`, `node:fs`). */
  readonly target: string;
  /** `import type` / `export type` / `import('x').T`: erased, loads nothing at run time. */
  readonly typeOnly: boolean;
}

/** Every module of a source tree and what it imports. */
export interface ImportGraph {
  /** Absolute path of the tree's root (for example `…/src`). */
  readonly root: string;
  /** Each module (absolute path) → the modules it imports inside the tree. */
  readonly modules: ReadonlyMap<string, readonly ModuleImport[]>;
  /** Each module (absolute path) → the packages it imports. */
  readonly packages: ReadonlyMap<string, readonly ModuleImport[]>;
}

const sourceExtensions = ['.ts', '.mts', '.tsx'];

function listSourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const entryPath = path.join(directory, entry.name);
    if (entry.isDirectory()) return listSourceFiles(entryPath);
    const isSource = sourceExtensions.some((extension) => entry.name.endsWith(extension));
    return isSource && !entry.name.endsWith('.d.ts') ? [entryPath] : [];
  });
}

/** Resolves a relative specifier as NodeNext does for TypeScript sources: `./x.js` is `./x.ts`. */
function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const target = path.resolve(path.dirname(fromFile), specifier);
  const withoutJs = target.replace(/\.(m?js|jsx)$/, '');
  const candidates = [
    target,
    ...sourceExtensions.map((extension) => withoutJs + extension),
    ...sourceExtensions.map((extension) => path.join(target, `index${extension}`)),
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** The package a bare specifier names: `@aws-sdk/client-ssm/x` → `@aws-sdk/client-ssm`. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Every specifier a module names, static, re-exported, dynamic or in a type, and whether it is type-only. */
function readSpecifiers(file: string): { specifier: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.importClause?.isTypeOnly ?? false });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Adds an import, keeping one entry per target: a runtime import wins over a type-only one. */
function addImport(imports: Map<string, ModuleImport>, target: string, typeOnly: boolean): void {
  const known = imports.get(target);
  imports.set(target, { target, typeOnly: typeOnly && (known?.typeOnly ?? true) });
}

/** Reads every TypeScript module under `root` and the imports each one makes. */
export function readImportGraph(root: string): ImportGraph {
  const modules = new Map<string, ModuleImport[]>();
  const packages = new Map<string, ModuleImport[]>();
  for (const file of listSourceFiles(root)) {
    const local = new Map<string, ModuleImport>();
    const bare = new Map<string, ModuleImport>();
    for (const { specifier, typeOnly } of readSpecifiers(file)) {
      if (!specifier.startsWith('.')) {
        addImport(bare, packageName(specifier), typeOnly);
        continue;
      }
      const resolved = resolveRelative(file, specifier);
      if (!resolved) throw new Error(`${path.relative(root, file)}: cannot resolve '${specifier}'`);
      // Assets read at run time (`./assets/x.html`) are not modules.
      if (sourceExtensions.some((extension) => resolved.endsWith(extension)))
        addImport(local, resolved, typeOnly);
    }
    modules.set(file, [...local.values()]);
    packages.set(file, [...bare.values()]);
  }
  return { root, modules, packages };
}

/**
 * The folder a module belongs to, for the folder graph: its top-level folder under the root
 * (`tools/builtin/reply-tool.ts` → `tools`). Sub-folders are parts of their folder, so
 * `tools/builtin` importing `tools/tool.ts` is not an edge.
 */
export function folderOf(graph: ImportGraph, file: string): string {
  const relative = path.relative(graph.root, file).split(path.sep);
  return relative.length > 1 ? (relative[0] ?? '.') : '.';
}

/** One folder-to-folder edge and the imports that make it. */
export interface FolderEdge {
  readonly from: string;
  readonly to: string;
  /** `from-file → to-file`, relative to the root, `(type)` after a type-only import. */
  readonly because: readonly string[];
}

/** The folder graph: an edge from folder A to folder B when a module in A imports one in B. */
export function folderEdges(graph: ImportGraph): FolderEdge[] {
  const edges = new Map<string, { from: string; to: string; because: string[] }>();
  for (const [file, imports] of graph.modules) {
    const from = folderOf(graph, file);
    for (const { target, typeOnly } of imports) {
      const to = folderOf(graph, target);
      if (from === to) continue;
      const key = `${from}\0${to}`;
      const edge = edges.get(key) ?? { from, to, because: [] };
      const relative = (module: string) => path.relative(graph.root, module);
      edge.because.push(`${relative(file)} → ${relative(target)}${typeOnly ? ' (type)' : ''}`);
      edges.set(key, edge);
    }
  }
  return [...edges.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/**
 * Every elementary cycle of the folder graph, each as its edges starting from its
 * alphabetically first folder. The graph has a dozen folders, so a plain depth-first
 * enumeration is enough.
 */
export function folderCycles(graph: ImportGraph): FolderEdge[][] {
  const outgoing = new Map<string, FolderEdge[]>();
  for (const edge of folderEdges(graph)) outgoing.set(edge.from, [...(outgoing.get(edge.from) ?? []), edge]);
  const cycles: FolderEdge[][] = [];
  const walk = (start: string, at: string, trail: FolderEdge[], visited: Set<string>): void => {
    for (const edge of outgoing.get(at) ?? []) {
      if (edge.to === start) cycles.push([...trail, edge]);
      // Only folders after the start, so each cycle is found once, from its first folder.
      else if (edge.to > start && !visited.has(edge.to)) {
        visited.add(edge.to);
        walk(start, edge.to, [...trail, edge], visited);
        visited.delete(edge.to);
      }
    }
  };
  for (const start of [...outgoing.keys()].sort()) walk(start, start, [], new Set([start]));
  return cycles;
}

/** Prints a cycle as `config → tools → prompt → config` with the imports behind each step. */
export function describeCycle(cycle: readonly FolderEdge[]): string {
  const folders = [...cycle.map((edge) => edge.from), cycle[0]?.from ?? ''].join(' → ');
  const steps = cycle.map((edge) => `  ${edge.from} → ${edge.to}: ${edge.because.join(', ')}`);
  return [folders, ...steps].join('\n');
}

/** What a module brings in, itself included: the tree's modules and the packages. */
export interface TransitiveImports {
  /** Absolute paths, sorted. */
  readonly modules: readonly string[];
  /** Package names, sorted. */
  readonly packages: readonly string[];
}

/**
 * What a module brings in. With `runtimeOnly`, type-only imports are not followed: that is
 * what Node loads. Without it, every import is followed: what a reader (and the compiler)
 * must take in to understand the module.
 */
export function transitiveImports(
  graph: ImportGraph,
  entry: string,
  options: { runtimeOnly?: boolean } = {},
): TransitiveImports {
  const follows = (item: ModuleImport) => !(options.runtimeOnly && item.typeOnly);
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const item of graph.modules.get(queue.shift()!) ?? []) {
      if (!follows(item) || seen.has(item.target)) continue;
      seen.add(item.target);
      queue.push(item.target);
    }
  }
  const packages = [...seen].flatMap((file) => (graph.packages.get(file) ?? []).filter(follows));
  return { modules: [...seen].sort(), packages: [...new Set(packages.map((item) => item.target))].sort() };
}
