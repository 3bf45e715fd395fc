/** Invalid configuration: names the variable, so start-up can fail with one clear line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`invalid configuration: ${variable} ${reason}`);
  }
}
