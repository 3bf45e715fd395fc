import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { conversationTableDefinition, timeToLiveSpecification } from './dynamodb-table.js';

/**
 * Creates kaiwa's table (keys, work index, stream) and turns its TTL on; safe to run again.
 * For DynamoDB Local and tests: on AWS the deployment template owns the table.
 */
export async function createConversationTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<'created' | 'existed'> {
  let outcome: 'created' | 'existed' = 'created';
  try {
    await client.send(new CreateTableCommand(conversationTableDefinition(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    outcome = 'existed';
  }
  await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: tableName });
  const { TimeToLiveDescription } = await client.send(
    new DescribeTimeToLiveCommand({ TableName: tableName }),
  );
  const status = TimeToLiveDescription?.TimeToLiveStatus;
  if (status !== 'ENABLED' && status !== 'ENABLING') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: timeToLiveSpecification(),
      }),
    );
  }
  return outcome;
}
