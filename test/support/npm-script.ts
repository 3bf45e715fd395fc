import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

/**
 * What an npm script of package.json runs after `tsx`: Node.js flags, then the entry file. A
 * test spawns `node --import tsx …` with them — one process, which a SIGKILL ends for good —
 * and so runs the script with the flags its users get.
 */
export function tsxScriptArguments(name: string): string[] {
  const [runner, ...rest] = (packageJson.scripts[name] ?? '').split(/\s+/);
  if (runner !== 'tsx') throw new Error(`npm script ${name} does not run tsx: ${packageJson.scripts[name]}`);
  return rest;
}
