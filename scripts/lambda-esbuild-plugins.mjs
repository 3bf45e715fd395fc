// esbuild plugins for the Lambda bundles (serverless.yml, `custom.esbuild.plugins`).

const NAMESPACE = 'aws-sdk-through-require';

/**
 * The AWS SDK stays out of the bundles — the Lambda runtime ships it — and is loaded with
 * `require()` (the banner's `createRequire`), not an ESM `import`. Importing a CommonJS package
 * from ESM makes Node.js scan it and every module it re-exports for their named exports
 * (cjs-module-lexer); for the SDK's clients that was about a third of a cold start
 * (docs/PERFORMANCE.md, "Lambda bundles"). `require()` also finds the runtime's copy through
 * `NODE_PATH`, as it always has.
 *
 * @type {import('esbuild').Plugin}
 */
const awsSdkThroughRequire = {
  name: NAMESPACE,
  setup(build) {
    // Each `@aws-sdk/*` import becomes a module of one line that requires the package, which
    // esbuild leaves to run as it is (external).
    build.onResolve({ filter: /^@aws-sdk\// }, (args) =>
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

export default [awsSdkThroughRequire];
