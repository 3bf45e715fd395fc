import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { SSMClient } from '@aws-sdk/client-ssm';
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
  /** Default: `ssmClientWithTimeouts()`. */
  readonly client?: SSMClient;
  /** How long a value is used before it is read again, so a rotation is picked up (ms). */
  readonly ttlMs?: number;
  readonly logger?: Logger;
}

/**
 * An SSM client that gives up on a stalled call by itself: SSM sits on the webhook's path to
 * LINE's 2 s, and the SDK's default waits as long as the socket does. Two attempts of at most
 * 200 ms to connect and 400 ms to answer; the caller's deadline bounds the whole read anyway.
 * `throwOnRequestTimeout`: without it the SDK's request timeout only logs a warning and waits on.
 */
export function ssmClientWithTimeouts(): SSMClient {
  return new SSMClient({
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 200, requestTimeout: 400, throwOnRequestTimeout: true },
  });
}

/**
 * Secrets from SSM Parameter Store through Powertools Parameters: `GetParameters`, decrypted,
 * ten names a call, cached per container for `ttlMs` (never read at package time, so packaging
 * needs no AWS access). When a refresh fails, the values already read stay in use and the
 * failure is logged: a throttled SSM must not stop the bot.
 */
export class SsmSecrets implements SecretReader {
  private readonly provider: SSMProvider;
  private readonly lastRead = new Map<string, string>();
  private readonly maxAgeSeconds: number;
  private readonly logger: Logger;

  constructor(options: SsmSecretsOptions = {}) {
    this.provider = new SSMProvider({ awsSdkV3Client: options.client ?? ssmClientWithTimeouts() });
    this.maxAgeSeconds = (options.ttlMs ?? 5 * 60_000) / 1000;
    this.logger = options.logger ?? silentLogger;
  }

  async read(names: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const unique = [...new Set(names)];
    const options = { decrypt: true, maxAge: this.maxAgeSeconds };
    try {
      const { _errors: missing = [], ...values } = await this.provider.getParametersByName<string>(
        Object.fromEntries(unique.map((name) => [name, options])),
        { ...options, throwOnError: false },
      );
      if (missing.length > 0) throw new SecretNotFoundError(missing);
      for (const [name, value] of Object.entries(values)) {
        if (typeof value === 'string') this.lastRead.set(name, value);
      }
    } catch (error) {
      if (SecretNotFoundError.isInstance(error) || unique.some((name) => !this.lastRead.has(name)))
        throw error;
      this.logger.warn('SSM refresh failed; using the values read before', { error });
    }
    return new Map(names.map((name) => [name, this.lastRead.get(name)!]));
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
