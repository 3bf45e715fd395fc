import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createLambdaObservability,
  observedHandler,
  withMetrics,
} from '../../src/aws/observability/index.js';
import { createLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply } from '../../src/model/index.js';
import { startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';

// Powertools writes through a Console of its own on stdout and stderr (warn, error): the lines are read there.
let written: string[];
beforeEach(() => {
  written = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(...String(chunk).split('\n').filter(Boolean));
      return true;
    });
  }
  // As Lambda sets it for an on-demand container: Powertools counts cold starts only then.
  vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const lines = () => written.map((line) => JSON.parse(line) as Record<string, unknown>);
const logLines = () => lines().filter((line) => !('_aws' in line));
const emf = () => lines().filter((line) => '_aws' in line);
/** Every value EMF lines gave a metric, by name (Powertools writes repeated values as a list). */
const metricValues = (name: string) =>
  emf().flatMap((line) => (name in line ? [line[name] as number | number[]].flat() : []));

function lambdaContext(requestId: string): Context {
  return {
    awsRequestId: requestId,
    functionName: 'kaiwa-dev-webhook',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:ap-northeast-1:123456789012:function:kaiwa-dev-webhook',
    memoryLimitInMB: '512',
    logGroupName: '/aws/lambda/kaiwa-dev-webhook',
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

describe('logs on Lambda: kaiwa’s Logger port on Powertools', () => {
  it('writes the local logger’s fields plus the request id and cold start of each invocation', async () => {
    const observability = createLambdaObservability({ level: 'info' });
    const handler = observedHandler(observability, (_event: unknown) => {
      observability.logger.child({ sourceId: 'U1' }).warn('turn stopped early', {
        turnId: 't1',
        error: Object.assign(new Error('boom', { cause: new Error('socket') }), {
          code: 'ECONNRESET',
          body: 'the secret token',
        }),
      });
      observability.logger.debug('not at info');
      return Promise.resolve('ok');
    });
    await handler({}, lambdaContext('request-1'));
    await handler({}, lambdaContext('request-2'));

    const local: string[] = [];
    createLogger({ write: (line) => local.push(line) })
      .child({ sourceId: 'U1' })
      .warn('turn stopped early', { turnId: 't1', error: new Error('boom') });
    const [first, second] = logLines();
    expect(Object.keys(first!)).toEqual([
      ...['time', 'level', 'message'],
      ...['requestId', 'coldStart', 'functionName'],
      ...Object.keys(JSON.parse(local[0]!) as object).slice(3),
    ]);
    expect(first).toMatchObject({
      level: 'warn',
      message: 'turn stopped early',
      requestId: 'request-1',
      coldStart: true,
      functionName: 'kaiwa-dev-webhook',
      sourceId: 'U1',
      turnId: 't1',
      error: { name: 'Error', message: 'boom', code: 'ECONNRESET', cause: { message: 'socket' } },
    });
    expect(first!.time).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(written.join('\n')).not.toContain('the secret token');
    expect(second).toMatchObject({ requestId: 'request-2', coldStart: false });
    expect(logLines()).toHaveLength(2); // debug stays out at info
  });
});

describe('metrics (EMF) from the runtime’s events', () => {
  it('a real turn through kaiwa counts the turn, its model call and tokens, and the delivery by method', async () => {
    const metrics = new Metrics({ namespace: 'kaiwa-test', serviceName: 'kaiwa' });
    const logger = withMetrics(createLogger({ level: 'silent' }), metrics);
    const model = new ScriptedModel([callReply('hello back')]);
    const running = await startKaiwaWithFakeLine({ model, overrides: { logger } });
    try {
      const userId = 'U' + 'e'.repeat(32);
      await running.post(
        JSON.stringify({
          destination: running.line.emulator.botUserId,
          events: [textEvent(running.line, { type: 'user', userId }, 'hello')],
        }),
      );
      await running.kaiwa.host.whenSettled();
    } finally {
      await running.close();
    }
    metrics.publishStoredMetrics();

    expect(metricValues('Turns')).toEqual([1]);
    expect(metricValues('ModelCalls')).toEqual([1]);
    expect(metricValues('PromptTokens')).toEqual([0]); // the scripted model reports no usage
    expect(metricValues('EventsAccepted')).toEqual([1]);
    const delivery = emf().find((line) => 'Deliveries' in line)!;
    expect(delivery).toMatchObject({ Deliveries: 1, method: 'reply', service: 'kaiwa' });
    expect(delivery._aws).toMatchObject({
      CloudWatchMetrics: [{ Namespace: 'kaiwa-test', Dimensions: [['service', 'method']] }],
    });
    expect(metricValues('Failures')).toEqual([]);
  });

  it('every error line counts as a failure, whatever the log level', () => {
    const metrics = new Metrics({ namespace: 'kaiwa-test', serviceName: 'kaiwa' });
    const logger = withMetrics(createLogger({ level: 'silent' }), metrics).child({ sourceId: 'U1' });
    logger.error('delivery failed', { error: new Error('LINE 500') });
    metrics.publishStoredMetrics();
    expect(metricValues('Failures')).toEqual([1]);
    expect(metricValues('DeliveryFailures')).toEqual([1]);
  });
});

describe('observedHandler', () => {
  it('records the oldest SQS message’s wait and the cold start, and writes the metrics when the invocation ends', async () => {
    const now = 1_000_000;
    const observability = createLambdaObservability({ level: 'silent', namespace: 'kaiwa-test' });
    const handler = observedHandler(
      observability,
      (_event: unknown) => Promise.resolve('done'),
      () => now,
    );
    const sqsEvent = {
      Records: [
        { messageId: 'a', attributes: { SentTimestamp: String(now - 1200) } },
        { messageId: 'b', attributes: { SentTimestamp: String(now - 300) } },
      ],
    };
    await expect(handler(sqsEvent, lambdaContext('r1'))).resolves.toBe('done');
    await handler({ Records: [{ dynamodb: { ApproximateCreationDateTime: now / 1000 - 2 } }] });
    await handler({});

    expect(metricValues('QueueAge')).toEqual([1200, 2000]);
    expect(metricValues('ColdStart')).toEqual([1]);
    expect(emf().find((line) => 'ColdStart' in line)).toMatchObject({ function_name: 'kaiwa-dev-webhook' });
  });

  it('a throwing handler is logged once with its request id, rethrown, and its metrics still written', async () => {
    const observability = createLambdaObservability({ level: 'error', namespace: 'kaiwa-test' });
    const handler = observedHandler(observability, (_event: unknown) => {
      observability.logger.info('turn finished', { turnId: 't' });
      return Promise.reject(new Error('store down'));
    });
    await expect(handler({}, lambdaContext('r-failed'))).rejects.toThrow('store down');
    expect(logLines()).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'invocation failed',
        requestId: 'r-failed',
        error: expect.objectContaining({ message: 'store down' }) as unknown,
      }),
    ]);
    expect(metricValues('Turns')).toEqual([1]);
    expect(metricValues('Failures')).toEqual([1]);
  });
});
