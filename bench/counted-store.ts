/** What a store was asked to write, counted by `countWrites`. */
export interface StoreWriteCounts {
  /** Write calls, by method name. */
  readonly writes: Record<string, number>;
  /**
   * UTF-8 bytes of the write calls' arguments serialised as JSON, by method name: what the
   * store was handed to write, whatever it adds (keys, indexes, pages). Counted only while
   * `countBytes` is on, since serialising costs the bot process CPU.
   */
  readonly logicalBytes: Record<string, number>;
}

export interface CountedStore<T> {
  /** The store to hand the bot: reads pass through, writes are counted, then run. */
  readonly store: T;
  counts(): StoreWriteCounts;
  /** Switches the byte count on or off (off at first). */
  countBytes(on: boolean): void;
}

/**
 * Wraps any store and counts its write methods (the ones named) and, while asked, the bytes
 * handed to them. The same rule for every contender, so the figures compare: logical bytes are
 * the arguments as JSON — a checkpoint's head, entries and keys; a naive bot's whole history.
 *
 * @example
 * const counted = countWrites(store, ['accept', 'checkpoint']);
 * counted.countBytes(true);
 */
export function countWrites<T extends object>(
  store: T,
  writeMethods: readonly (keyof T & string)[],
): CountedStore<T> {
  const writes: Record<string, number> = {};
  const logicalBytes: Record<string, number> = {};
  let countingBytes = false;
  const methods = new Map<PropertyKey, unknown>();
  for (const name of writeMethods) {
    const method = store[name];
    if (typeof method !== 'function') throw new TypeError(`the store has no method ${name}`);
    writes[name] = 0;
    logicalBytes[name] = 0;
    methods.set(name, (...args: unknown[]): unknown => {
      writes[name]!++;
      if (countingBytes) logicalBytes[name]! += Buffer.byteLength(JSON.stringify(args), 'utf8');
      return (method as (...args: unknown[]) => unknown).apply(store, args);
    });
  }
  const counted = new Proxy(store, {
    get(target, property) {
      if (methods.has(property)) return methods.get(property);
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      // Bound once: the store's own `this`, whatever the caller does with the method.
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      methods.set(property, bound);
      return bound;
    },
  });
  return {
    store: counted,
    counts: () => ({ writes: { ...writes }, logicalBytes: { ...logicalBytes } }),
    countBytes: (on) => {
      countingBytes = on;
    },
  };
}
