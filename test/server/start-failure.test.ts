import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { startFailureMessage } from '../../src/server/start-failure.js';

// What `npm start` says when its store is not there. The errors are shaped as the AWS SDK
// throws them: each carries `$metadata`, a service error its `name`, a network error its `code`.

const onDynamoDb = (env: Record<string, string> = {}) =>
  loadConfig({ STORE: 'dynamodb', DYNAMODB_TABLE: 'kaiwa-chats', AWS_REGION: 'ap-northeast-1', ...env });

function sdkError(name: string, message: string, code?: string) {
  return Object.assign(new Error(message), { name, $metadata: { attempts: 1 }, ...(code && { code }) });
}

describe('the line npm start prints when it cannot start', () => {
  const missing = sdkError('ResourceNotFoundException', 'Cannot do operations on a non-existent table');
  const refused = sdkError('Error', 'connect ECONNREFUSED 127.0.0.1:8000', 'ECONNREFUSED');

  it('names the missing table, where it was looked for, and how to create it', () => {
    expect(startFailureMessage(missing, onDynamoDb({ DYNAMODB_ENDPOINT: 'http://localhost:8000' }))).toBe(
      'the DynamoDB table kaiwa-chats (DYNAMODB_TABLE) does not exist at http://localhost:8000 (DYNAMODB_ENDPOINT): ' +
        'create it with `npm run db:create` for DynamoDB Local, or deploy it (docs/persistence.md)',
    );
    expect(startFailureMessage(missing, onDynamoDb())).toContain(
      'does not exist in ap-northeast-1 (AWS_REGION)',
    );
  });

  it('names the endpoint it could not reach', () => {
    expect(startFailureMessage(refused, onDynamoDb({ DYNAMODB_ENDPOINT: 'http://localhost:8000' }))).toBe(
      'cannot reach DynamoDB at http://localhost:8000 (DYNAMODB_ENDPOINT): connect ECONNREFUSED 127.0.0.1:8000',
    );
  });

  it('leaves alone what DynamoDB did not say, and every other store', () => {
    const portTaken = Object.assign(new Error('listen EADDRINUSE: address already in use :::3000'), {
      code: 'EADDRINUSE',
    });
    expect(startFailureMessage(portTaken, onDynamoDb())).toBe(portTaken.message);
    expect(startFailureMessage(missing, loadConfig({ STORE: 'sqlite' }))).toBe(missing.message);
  });

  it('names DATA_DIR when its directory cannot be used, and why', () => {
    const sqlite = loadConfig({ STORE: 'sqlite', DATA_DIR: '/srv/kaiwa' });
    const fsError = (code: string, message: string, at: string) =>
      Object.assign(new Error(`${code}: ${message}, mkdir '${at}'`), { code, path: at, syscall: 'mkdir' });

    expect(startFailureMessage(fsError('EEXIST', 'file already exists', '/srv/kaiwa'), sqlite)).toBe(
      'cannot use DATA_DIR /srv/kaiwa: /srv/kaiwa is not a directory',
    );
    expect(startFailureMessage(fsError('ENOTDIR', 'not a directory', '/srv/kaiwa/journal'), sqlite)).toBe(
      'cannot use DATA_DIR /srv/kaiwa: /srv/kaiwa/journal is not a directory',
    );
    expect(startFailureMessage(fsError('EACCES', 'permission denied', '/srv/kaiwa/kaiwa.db'), sqlite)).toBe(
      'cannot use DATA_DIR /srv/kaiwa: permission denied for /srv/kaiwa/kaiwa.db',
    );
    expect(startFailureMessage(fsError('EROFS', 'read-only file system', '/srv/kaiwa'), sqlite)).toBe(
      'cannot use DATA_DIR /srv/kaiwa: /srv/kaiwa is on a read-only file system',
    );
    // Elsewhere, or another failure: as it was.
    const elsewhere = fsError('EACCES', 'permission denied', '/etc/persona.txt');
    expect(startFailureMessage(elsewhere, sqlite)).toBe(elsewhere.message);
  });

  it('npm run db:create on an endpoint it cannot reach says which, in one line', async () => {
    const script = path.resolve(import.meta.dirname, '../../scripts/create-table.ts');
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
      env: { PATH: process.env.PATH ?? '', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', AWS_REGION: 'us-east-1' },
    });
    await expect(run).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^kaiwa: cannot reach DynamoDB at http:\/\/127\.0\.0\.1:9 \(DYNAMODB_ENDPOINT\): [^\n]*\n$/,
      ) as unknown,
    });
  });
});
