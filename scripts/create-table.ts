import { ConfigError, loadConfig } from '../src/config/index.js';
import { createConversationTable, createDynamoDbClient } from '../src/persistence/index.js';
import { startFailureMessage } from '../src/server/start-failure.js';

// `npm run db:create`: creates kaiwa's table on a local endpoint (DynamoDB Local). On AWS
// the table belongs to the deployment (serverless.yml), never to this script.
async function main() {
  const config = loadConfig(process.env, { store: 'dynamodb' });
  const { table, endpoint, region } = config.store.dynamodb;
  if (endpoint === undefined) {
    throw new ConfigError(
      'DYNAMODB_ENDPOINT',
      'must be set: this script only creates the table on a local endpoint',
    );
  }
  const client = createDynamoDbClient({ region, endpoint });
  try {
    const outcome = await createConversationTable(client, table);
    process.stdout.write(
      `kaiwa: table ${table} ${outcome === 'created' ? 'created' : 'already exists'} at ${endpoint}\n`,
    );
  } catch (error) {
    // "cannot reach DynamoDB at … (DYNAMODB_ENDPOINT)", not the bare "connect ECONNREFUSED".
    throw new Error(startFailureMessage(error, config), { cause: error });
  } finally {
    client.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`kaiwa: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
