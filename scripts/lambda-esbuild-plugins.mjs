// esbuild plugins for the Lambda bundles (serverless.yml, `custom.esbuild.plugins`).
import { builtinModules } from 'node:module';

const NAMESPACE = 'through-require';

/** `@aws-sdk/*`, and Node.js's built-in modules by either name (`node:http`, `http`). */
const REQUIRED = new RegExp(
  `^(@aws-sdk/.*|node:.*|${builtinModules.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})$`,
);

/**
 * The AWS SDK stays out of the bundles — the Lambda runtime ships it — and, like Node.js's own
 * modules, is loaded with `require()` (the banner's `createRequire`), not an ESM `import`.
 * Importing a CommonJS package from ESM makes Node.js scan it and every module it re-exports for
 * their named exports (cjs-module-lexer), and importing a built-in reads all its exports, lazy
 * ones included (`node:http`'s load undici: 45 ms of CPU): together about a third of a cold start
 * (docs/PERFORMANCE.md, "Lambda bundles"). `require()` finds the runtime's SDK through
 * `NODE_PATH`, as it always has.
 *
 * @type {import('esbuild').Plugin}
 */
const throughRequire = {
  name: NAMESPACE,
  setup(build) {
    // Each such import becomes a module of one line that requires it, which esbuild leaves to
    // run as it is (external).
    build.onResolve({ filter: REQUIRED }, (args) =>
      args.namespace === NAMESPACE
        ? { path: args.path, external: true }
        : { path: args.path, namespace: NAMESPACE },
    );
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Modules the bundled dependencies import but kaiwa never runs, replaced by a stub that says so if
 * it ever is run: `ws`, which @google/genai imports for its Live API (kaiwa calls
 * `generateContent` only), and `web-streams-polyfill`, which `fetch-blob` (under google-auth-library's
 * HTTP client) loads only where `globalThis.ReadableStream` is missing — never on Node.js 22.
 * Together about 105 KB of the worker's bundle.
 */
const LEFT_OUT = {
  ws: `export class WebSocket {
  constructor() { throw new Error('kaiwa: the Lambda bundle leaves out "ws" (the Gemini Live API is not used)'); }
}
export default WebSocket;`,
  'web-streams-polyfill': `throw new Error('kaiwa: the Lambda bundle leaves out "web-streams-polyfill" (Node.js 22 has web streams)');`,
};

/** @type {import('esbuild').Plugin} */
const leftOut = {
  name: 'left-out',
  setup(build) {
    build.onResolve({ filter: /^(ws|web-streams-polyfill)(\/.*)?$/ }, (args) => ({
      path: args.path.split('/')[0],
      namespace: 'left-out',
    }));
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
      contents: LEFT_OUT[args.path],
      loader: 'js',
    }));
  },
};

export default [throughRequire, leftOut];
