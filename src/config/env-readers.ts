import { ConfigError } from './config-error.js';

export type Env = Readonly<Record<string, string | undefined>>;

// Small readers that turn one variable into a typed value or a ConfigError naming it.

export function readString(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

export function readInteger(
  env: Env,
  name: string,
  fallback: number,
  range: { min: number; max: number },
): number {
  const raw = readString(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number (got "${raw}")`);
  const value = Number(raw);
  if (value < range.min || value > range.max) {
    throw new ConfigError(name, `must be between ${range.min} and ${range.max} (got ${value})`);
  }
  return value;
}

/** A bounded whole-number setting: its variable, its default and the values it may take. */
export interface IntegerSetting {
  readonly variable: string;
  readonly fallback: number;
  readonly min: number;
  readonly max: number;
}

/** A table of bounded whole-number settings, by the field each one fills. */
export type IntegerSettings = Readonly<Record<string, IntegerSetting>>;

/**
 * Reads every setting of a table with `readInteger` (the same checks and messages), in the
 * table's order: one table replaces a reader call per variable.
 * @example
 * readIntegers(env, { leaseMs: { variable: 'KAIWA_LEASE_MS', fallback: 30_000, min: 1000, max: 600_000 } })
 */
export function readIntegers<T extends IntegerSettings>(env: Env, settings: T): { [K in keyof T]: number } {
  const values: Record<string, number> = {};
  for (const [field, { variable, fallback, min, max }] of Object.entries(settings)) {
    values[field] = readInteger(env, variable, fallback, { min, max });
  }
  return values as { [K in keyof T]: number };
}

export function readChoice<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = readString(env, name);
  if (raw === undefined) return fallback;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${choices.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

export function readUrl(env: Env, name: string, fallback: string): string {
  const raw = readString(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http(s) URL (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

export function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = readString(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}
