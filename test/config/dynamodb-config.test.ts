import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

describe('DynamoDB store configuration', () => {
  it('defaults the table to kaiwa and conversations to 30 days, and needs no region for other stores', () => {
    expect(loadConfig({}).store.dynamodb).toEqual({
      table: 'kaiwa',
      endpoint: undefined,
      region: 'us-east-1',
      conversationTtlDays: 30,
    });
  });

  it('reads the table, endpoint, region and TTL for STORE=dynamodb', () => {
    const config = loadConfig({
      STORE: 'dynamodb',
      DYNAMODB_TABLE: 'kaiwa-prod',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000/',
      AWS_REGION: 'ap-northeast-1',
      KAIWA_CONVERSATION_TTL_DAYS: '0',
    });

    expect(config.store).toMatchObject({
      kind: 'dynamodb',
      dynamodb: {
        table: 'kaiwa-prod',
        endpoint: 'http://127.0.0.1:8000',
        region: 'ap-northeast-1',
        conversationTtlDays: 0,
      },
    });
  });

  it('lets DynamoDB Local go without a region', () => {
    const config = loadConfig({ STORE: 'dynamodb', DYNAMODB_ENDPOINT: 'http://localhost:8000' });
    expect(config.store.dynamodb.region).toBe('us-east-1');
  });

  it.each([
    [{ STORE: 'dynamodb' }, 'AWS_REGION', 'must be set for STORE=dynamodb'],
    [{ DYNAMODB_TABLE: 'a b' }, 'DYNAMODB_TABLE', 'must be 3 to 255 letters'],
    [{ DYNAMODB_ENDPOINT: 'localhost:8000' }, 'DYNAMODB_ENDPOINT', 'must be an http(s) URL'],
    [{ KAIWA_CONVERSATION_TTL_DAYS: '-1' }, 'KAIWA_CONVERSATION_TTL_DAYS', 'between 0 and 3650'],
  ])('refuses %o naming %s', (env, variable, reason) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ variable });
    expect((error as Error).message).toContain(reason);
  });
});
