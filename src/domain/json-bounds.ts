/** How deep, long and large one parsed JSON value may be before anything recurses over it. */
export interface JsonBounds {
  /** Nesting levels: an object or array inside another adds one. */
  readonly maxDepth: number;
  /** UTF-16 code units of any one string, property names included. */
  readonly maxStringLength: number;
  /** Values in all (objects, arrays, strings, numbers, …). */
  readonly maxValues: number;
}

/** Where a value goes beyond its bounds: the JSON Pointer of the first offending place. */
export interface BoundsViolation {
  readonly keyword: 'maxDepth' | 'maxLength' | 'maxValues';
  readonly instancePath: string;
}

/**
 * Finds the first place `value` goes beyond `bounds`, with an explicit stack rather than
 * recursion: `JSON.parse` takes 10⁵ levels of nesting in its stride, but `JSON.stringify`, ajv,
 * `structuredClone` and the logger recurse and die with "Maximum call stack size exceeded".
 * Checking here, once per event, keeps that from ever reaching them (docs/security.md).
 */
export function exceedsBounds(value: unknown, bounds: JsonBounds): BoundsViolation | undefined {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  let values = 0;
  while (stack.length > 0) {
    const { value: current, depth, path } = stack.pop()!;
    if (++values > bounds.maxValues) return { keyword: 'maxValues', instancePath: path };
    if (typeof current === 'string') {
      if (current.length > bounds.maxStringLength) return { keyword: 'maxLength', instancePath: path };
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > bounds.maxDepth) return { keyword: 'maxDepth', instancePath: path };
    const size = Array.isArray(current) ? current.length : Object.keys(current).length;
    if (values + stack.length + size > bounds.maxValues) return { keyword: 'maxValues', instancePath: path };
    const entries: [string, unknown][] = Array.isArray(current)
      ? current.map((item, index) => [String(index), item])
      : Object.entries(current);
    for (const [key, item] of entries) {
      const at = `${path}/${pointerSegment(key)}`;
      if (key.length > bounds.maxStringLength) return { keyword: 'maxLength', instancePath: at };
      stack.push({ value: item, depth: depth + 1, path: at });
    }
  }
  return undefined;
}

/**
 * A path segment that is safe to log: LINE's own property names and indexes stay, anything else
 * (a key the sender made up, which may be user content) becomes `*`.
 */
export function pointerSegment(key: string): string {
  return /^[A-Za-z0-9_]{1,40}$/.test(key) ? key : '*';
}
