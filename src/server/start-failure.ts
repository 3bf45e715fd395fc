import path from 'node:path';
import type { KaiwaConfig } from '../config/index.js';
import { isNetworkError } from '../errors/network-error.js';

/**
 * The one line `npm start` (and `npm run db:create`) prints when it cannot start. A DynamoDB it
 * cannot reach, or a table that does not exist, is named with where it was looked for and what
 * to do: the SDK's own words ("Cannot do operations on a non-existent table", "connect
 * ECONNREFUSED 127.0.0.1:8000") say neither which table nor which setting. So is a DATA_DIR
 * that cannot be used ("EEXIST: file already exists, mkdir …" names no setting).
 */
export function startFailureMessage(error: unknown, config: KaiwaConfig): string {
  const message = error instanceof Error ? error.message : String(error);
  const inDataDir = dataDirFailure(error, config.store.dataDir);
  if (inDataDir !== undefined) return `cannot use DATA_DIR ${config.store.dataDir}: ${inDataDir}`;
  // The AWS SDK marks every error of a call it made, the network's included, with `$metadata`.
  const fromDynamoDb = typeof error === 'object' && error !== null && '$metadata' in error;
  if (config.store.kind !== 'dynamodb' || !fromDynamoDb) return message;
  const { table, endpoint, region } = config.store.dynamodb;
  const where = endpoint === undefined ? `in ${region} (AWS_REGION)` : `at ${endpoint} (DYNAMODB_ENDPOINT)`;
  const failure = error as { name?: unknown };
  if (failure.name === 'ResourceNotFoundException') {
    return (
      `the DynamoDB table ${table} (DYNAMODB_TABLE) does not exist ${where}: ` +
      `create it with \`npm run db:create\` for DynamoDB Local, or deploy it (docs/persistence.md)`
    );
  }
  if (isNetworkError(error) || failure.name === 'TimeoutError') {
    return `cannot reach DynamoDB ${where}: ${message}`;
  }
  return `DynamoDB ${where}, table ${table}: ${message}`;
}

/** Why a file system call under `dataDir` failed, in words; undefined for anything else. */
function dataDirFailure(error: unknown, dataDir: string): string | undefined {
  const { code, path: at } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    path?: unknown;
  };
  if (typeof at !== 'string' || typeof code !== 'string') return undefined;
  const relative = path.relative(path.resolve(dataDir), path.resolve(at));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  switch (code) {
    case 'EEXIST':
    case 'ENOTDIR':
      return `${at} is not a directory`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied for ${at}`;
    case 'EROFS':
      return `${at} is on a read-only file system`;
    case 'ENOSPC':
      return `the disk holding ${at} is full`;
    default:
      return undefined;
  }
}
