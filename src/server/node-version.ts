/**
 * The Node.js check `npm start` runs before it loads anything else: `engines.node` of
 * package.json (">=22.13") against the running Node.js. It imports nothing, so it runs even
 * on a Node.js too old for the rest of kaiwa (`node:sqlite`, say).
 */

/**
 * One line naming the required version when `version` is older than `range`, else undefined.
 * Only `>=` ranges are understood, the only kind kaiwa's package.json uses.
 * @example
 * nodeVersionProblem('>=22.13', 'v20.20.2'); // 'kaiwa needs Node.js >= 22.13 (this is v20.20.2)'
 */
export function nodeVersionProblem(range: string, version: string): string | undefined {
  const minimum = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(range.trim())?.[1];
  if (minimum === undefined) throw new RangeError(`engines.node must read ">=X.Y", not "${range}"`);
  const running = /^v?(\d+(?:\.\d+){0,2})/.exec(version)?.[1];
  if (running === undefined) throw new RangeError(`not a Node.js version: "${version}"`);
  return compareVersions(running, minimum) < 0
    ? `kaiwa needs Node.js >= ${minimum} (this is ${version})`
    : undefined;
}

/** Compares dotted versions number by number ("22.9" < "22.13"); missing parts count as 0. */
function compareVersions(left: string, right: string): number {
  const a = left.split('.').map(Number);
  const b = right.split('.').map(Number);
  for (let index = 0; index < 3; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
