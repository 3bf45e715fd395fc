const kaiwaMarker = Symbol.for('kaiwa.error');

/**
 * The base of every error kaiwa throws. `name` is a string literal per class, so it survives
 * bundling and minification; the other fields say what went wrong, as data, for logs and for
 * the code that handles the error.
 *
 * Recognise one with `KaiwaError.isInstance(error)` (or `ConfigError.isInstance(error)` for a
 * given kind) rather than `instanceof`: the check looks for a marker registered with
 * `Symbol.for`, which two copies of kaiwa in one process share (a bundled handler and a
 * library, two versions in `node_modules`), where `instanceof` would say no.
 * @example
 * export class ConfigError extends KaiwaError {
 *   private readonly [marker] = true; // const marker = Symbol.for('kaiwa.error.ConfigError')
 *   override readonly name = 'ConfigError' as const;
 *   constructor(readonly variable: string, readonly reason: string) {
 *     super(`invalid configuration: ${variable} ${reason}`);
 *   }
 *   static override isInstance(value: unknown): value is ConfigError {
 *     return KaiwaError.hasMarker(value, marker);
 *   }
 * }
 */
export abstract class KaiwaError extends Error {
  private readonly [kaiwaMarker] = true;
  abstract override readonly name: string;

  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }

  /** True for any kaiwa error, from this copy of kaiwa or another. */
  static isInstance(value: unknown): value is KaiwaError {
    return KaiwaError.hasMarker(value, kaiwaMarker);
  }

  /** True when `value` carries `marker` (a `Symbol.for` symbol) set to `true`. */
  protected static hasMarker(value: unknown, marker: symbol): boolean {
    return typeof value === 'object' && value !== null && Reflect.get(value, marker) === true;
  }
}
