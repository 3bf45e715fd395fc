import { readFileSync } from 'node:fs';
import { nodeVersionProblem } from './node-version.js';

// `npm start`'s entry. ESM imports are hoisted and evaluated before a module's body, so the
// Node.js check lives in this tiny module and the runtime is imported only once it passed: on
// an old Node.js the user gets one line, not a stack trace from deep inside an import.
const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};
const problem = nodeVersionProblem(packageJson.engines.node, process.version);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
await import('./main.js');
