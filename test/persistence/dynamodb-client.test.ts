import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDbClient } from '../../src/persistence/dynamodb-client.js';

describe('the DynamoDB client', () => {
  let silent: Server;
  let endpoint: string;
  beforeAll(async () => {
    // Takes the request and never answers: a stalled connection.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('ends a request that gets no answer at its request timeout instead of waiting on', async () => {
    const client = createDynamoDbClient({
      region: 'ap-northeast-1',
      endpoint,
      maxAttempts: 1,
      requestTimeoutMs: 300,
    });
    const started = Date.now();
    const outcome = await client
      .send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }), {
        // The test's own bound: without the client's timeout the call would still be waiting here.
        abortSignal: AbortSignal.timeout(8_000),
      })
      .then(
        () => 'answered',
        (error: Error) => error.name,
      );
    client.destroy();

    expect(outcome).toMatch(/TimeoutError/);
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
