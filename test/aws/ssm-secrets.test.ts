import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SsmSecrets, withSecrets } from '../../src/aws/index.js';
import { ConfigError } from '../../src/config/index.js';
import { startFakeSsm } from './support/fake-ssm-server.js';

let ssm: Awaited<ReturnType<typeof startFakeSsm>>;
const client = () =>
  new SSMClient({
    endpoint: ssm.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    maxAttempts: 1,
  });

describe('secrets from SSM Parameter Store, read at run time', () => {
  beforeAll(async () => {
    ssm = await startFakeSsm({
      '/kaiwa/dev/line-channel-secret': 'secret-1',
      '/kaiwa/dev/line-channel-access-token': 'token-1',
      '/kaiwa/dev/gemini-api-key': 'gemini-1',
    });
  });
  beforeEach(() => {
    ssm.calls.length = 0;
    ssm.parameters['/kaiwa/dev/line-channel-secret'] = 'secret-1';
  });
  afterAll(() => ssm.close());
  afterEach(() => vi.useRealTimers());
  /** Powertools' cache reads `Date.now()`: only the date is faked, timers stay real. */
  const at = (now: number) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
  };

  const env = {
    KAIWA_SSM_LINE_CHANNEL_SECRET: '/kaiwa/dev/line-channel-secret',
    KAIWA_SSM_LINE_CHANNEL_ACCESS_TOKEN: '/kaiwa/dev/line-channel-access-token',
    KAIWA_SSM_GEMINI_API_KEY: '/kaiwa/dev/gemini-api-key',
  };

  it('fills the variables from their parameters in one decrypted call, then serves them from its cache', async () => {
    const secrets = new SsmSecrets({ client: client() });
    const filled = await withSecrets(env, secrets, [
      'LINE_CHANNEL_SECRET',
      'LINE_CHANNEL_ACCESS_TOKEN',
      'GEMINI_API_KEY',
    ]);
    expect(filled).toMatchObject({
      LINE_CHANNEL_SECRET: 'secret-1',
      LINE_CHANNEL_ACCESS_TOKEN: 'token-1',
      GEMINI_API_KEY: 'gemini-1',
    });
    await withSecrets(env, secrets, ['LINE_CHANNEL_SECRET']);
    expect(ssm.calls).toEqual([
      {
        names: [
          '/kaiwa/dev/line-channel-secret',
          '/kaiwa/dev/line-channel-access-token',
          '/kaiwa/dev/gemini-api-key',
        ],
        withDecryption: true,
      },
    ]);
  });

  it('a variable already set wins: no SSM call at all', async () => {
    const secrets = new SsmSecrets({ client: client() });
    const filled = await withSecrets({ ...env, LINE_CHANNEL_SECRET: 'local' }, secrets, [
      'LINE_CHANNEL_SECRET',
    ]);
    expect(filled.LINE_CHANNEL_SECRET).toBe('local');
    expect(ssm.calls).toEqual([]);
  });

  it('reads again once the cache lapses, so a rotated secret is picked up', async () => {
    at(1_000_000);
    const secrets = new SsmSecrets({ client: client(), ttlMs: 1000 });
    expect((await withSecrets(env, secrets, ['LINE_CHANNEL_SECRET'])).LINE_CHANNEL_SECRET).toBe('secret-1');
    ssm.parameters['/kaiwa/dev/line-channel-secret'] = 'secret-2';
    at(1_000_999);
    expect((await withSecrets(env, secrets, ['LINE_CHANNEL_SECRET'])).LINE_CHANNEL_SECRET).toBe('secret-1');
    at(1_001_001);
    expect((await withSecrets(env, secrets, ['LINE_CHANNEL_SECRET'])).LINE_CHANNEL_SECRET).toBe('secret-2');
    expect(ssm.calls).toHaveLength(2);
  });

  it('keeps the values it has when a refresh fails (a throttled SSM must not stop the bot)', async () => {
    at(1_000_000);
    const secrets = new SsmSecrets({ client: client(), ttlMs: 1000 });
    await withSecrets(env, secrets, ['LINE_CHANNEL_SECRET']);
    at(1_005_000);
    ssm.failNext(1);
    expect((await withSecrets(env, secrets, ['LINE_CHANNEL_SECRET'])).LINE_CHANNEL_SECRET).toBe('secret-1');
  });

  it('without a value to fall back on, an SSM failure is an error', async () => {
    ssm.failNext(1);
    await expect(
      withSecrets(env, new SsmSecrets({ client: client() }), ['LINE_CHANNEL_SECRET']),
    ).rejects.toThrow(/Rate exceeded/);
  });

  it('a parameter that does not exist fails with one line naming the variable that names it', async () => {
    const missing = { ...env, KAIWA_SSM_GEMINI_API_KEY: '/kaiwa/dev/no-such-key' };
    const error = await withSecrets(missing, new SsmSecrets({ client: client() }), ['GEMINI_API_KEY']).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('KAIWA_SSM_GEMINI_API_KEY');
    expect((error as ConfigError).message).toContain('/kaiwa/dev/no-such-key');
  });

  it('asks at most ten names per call, as GetParameters requires', async () => {
    const names = Array.from({ length: 12 }, (_, index) => `/kaiwa/dev/p${index}`);
    for (const name of names) ssm.parameters[name] = name.toUpperCase();
    const values = await new SsmSecrets({ client: client() }).read(names);
    expect(values.get('/kaiwa/dev/p11')).toBe('/KAIWA/DEV/P11');
    expect(ssm.calls.map((call) => call.names.length)).toEqual([10, 2]);
  });
});
