import { GetParametersCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { ConfigError } from '../config/config-error.js';
import { readString, type Env } from '../config/env-readers.js';
import { silentLogger, type Logger } from '../logging/index.js';
import { SECRET_PARAMETERS, type SecretVariable } from './lambda-config.js';
import { SecretNotFoundError } from './secret-not-found-error.js';

/** Reads secret values by SSM parameter name. */
export interface SecretReader {
  /** Every name's value; throws `SecretNotFoundError` naming the parameters that do not exist. */
  read(names: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

export interface SsmSecretsOptions {
  readonly client: SSMClient;
  /** How long a value is used before it is read again, so a rotation is picked up (ms). */
  readonly ttlMs?: number;
  readonly now?: () => number;
  readonly logger?: Logger;
}

// GetParameters takes at most ten names per call.
const NAMES_PER_CALL = 10;

/**
 * Secrets from SSM Parameter Store, read at run time (never at package time, so packaging
 * needs no AWS access) and cached per container. When a refresh fails, the values already
 * read stay in use and the failure is logged: a throttled SSM must not stop the bot.
 */
export class SsmSecrets implements SecretReader {
  private readonly values = new Map<string, { value: string; readAt: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(private readonly options: SsmSecretsOptions) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? silentLogger;
  }

  async read(names: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const now = this.now();
    const stale = [...new Set(names)].filter((name) => {
      const cached = this.values.get(name);
      return !cached || now - cached.readAt >= this.ttlMs;
    });
    if (stale.length > 0) {
      try {
        await this.fetch(stale, now);
      } catch (error) {
        const unknown = stale.filter((name) => !this.values.has(name));
        if (SecretNotFoundError.isInstance(error) || unknown.length > 0) throw error;
        this.logger.warn('SSM refresh failed; using the values read before', { error });
      }
    }
    return new Map(names.map((name) => [name, this.values.get(name)!.value]));
  }

  private async fetch(names: readonly string[], now: number) {
    const missing: string[] = [];
    for (let start = 0; start < names.length; start += NAMES_PER_CALL) {
      const batch = names.slice(start, start + NAMES_PER_CALL);
      const { Parameters = [], InvalidParameters = [] } = await this.options.client.send(
        new GetParametersCommand({ Names: batch, WithDecryption: true }),
      );
      for (const parameter of Parameters) {
        if (parameter.Name !== undefined && parameter.Value !== undefined) {
          this.values.set(parameter.Name, { value: parameter.Value, readAt: now });
        }
      }
      missing.push(...InvalidParameters);
    }
    if (missing.length > 0) throw new SecretNotFoundError(missing);
  }
}

/**
 * The environment with the secrets filled in. A variable that is already set wins (tests,
 * a local run); otherwise its `KAIWA_SSM_*` variable names the parameter to read. A parameter
 * that does not exist fails with a `ConfigError` naming the variable that names it.
 */
export async function withSecrets(
  env: Env,
  secrets: SecretReader,
  variables: readonly SecretVariable[],
): Promise<Env> {
  const wanted = variables.flatMap((variable) => {
    if (readString(env, variable) !== undefined) return [];
    const parameterName = readString(env, SECRET_PARAMETERS[variable]);
    return parameterName === undefined ? [] : [{ variable, parameterName }];
  });
  if (wanted.length === 0) return env;
  let values: ReadonlyMap<string, string>;
  try {
    values = await secrets.read(wanted.map(({ parameterName }) => parameterName));
  } catch (error) {
    if (!SecretNotFoundError.isInstance(error)) throw error;
    const first = wanted.find(({ parameterName }) => error.parameterNames.includes(parameterName))!;
    throw new ConfigError(
      SECRET_PARAMETERS[first.variable],
      `names the SSM parameter "${first.parameterName}", which does not exist (see README "Deploy")`,
    );
  }
  return {
    ...env,
    ...Object.fromEntries(wanted.map(({ variable, parameterName }) => [variable, values.get(parameterName)])),
  };
}
