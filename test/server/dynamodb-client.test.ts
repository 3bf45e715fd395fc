import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { ScriptedModel, callReply } from '../../src/model/index.js';
import { DynamoDbSourceStore } from '../../src/persistence/index.js';
import { startKaiwa } from '../../src/server/kaiwa-runtime.js';
import { messageFor, storedHistory, userSourceNumber, userTexts } from '../support/host-harness.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';

/** Every DynamoDB client the runtime makes, counted on its way through kaiwa's one factory. */
const clients = vi.hoisted(() => ({ created: 0 }));
vi.mock('../../src/persistence/dynamodb-client.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/persistence/dynamodb-client.js')>();
  return {
    ...actual,
    createDynamoDbClient: (...args: Parameters<typeof actual.createDynamoDbClient>) => {
      clients.created++;
      return actual.createDynamoDbClient(...args);
    },
  };
});

describe.skipIf(!dynamoDbLocalRequired())('npm start on DynamoDB', () => {
  let dynamodb: DynamoDbLocal;
  beforeAll(async () => {
    dynamodb = await startDynamoDbLocal();
  });
  afterAll(async () => {
    await dynamodb?.stop();
  });

  it('reaches its table through one client: the store, the reminders and the background ledger share it', async () => {
    const table = await dynamodb.createTable();
    const config = loadConfig({ PORT: '0', ...dynamodb.storeEnv(table) });
    const before = clients.created;
    const kaiwa = await startKaiwa(config, {
      model: new ScriptedModel([callReply('hi')]),
      logger: silentLogger,
    });
    try {
      expect(clients.created - before).toBe(1);
      // The store works through it: a message is answered and its turn is in the table.
      const source = userSourceNumber(1);
      await kaiwa.host.accept([messageFor(source, 'hello')]);
      await kaiwa.host.whenSettled();
      const reader = new DynamoDbSourceStore({ client: dynamodb.createClient(), tableName: table });
      expect(userTexts(await storedHistory(reader, source.id))).toEqual(['hello']);
    } finally {
      await kaiwa.close();
    }
  });
});
