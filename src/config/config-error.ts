import { KaiwaError } from '../errors/index.js';

const marker = Symbol.for('kaiwa.error.ConfigError');

/** Invalid configuration: names the variable, so start-up can fail with one clear line. */
export class ConfigError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'ConfigError' as const;
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`invalid configuration: ${variable} ${reason}`);
  }

  /** True for a `ConfigError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is ConfigError {
    return KaiwaError.hasMarker(value, marker);
  }
}
