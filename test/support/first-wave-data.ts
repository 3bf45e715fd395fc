import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { InboxItem } from '../../src/domain/index.js';
import { CONVERSATION_SORT_KEY, workShard } from '../../src/persistence/dynamodb-table.js';
import type { FirstWaveConversation } from '../../src/persistence/first-wave-conversation.js';

// What the first wave's stores left behind, written byte for byte as they wrote it, for the
// migration tests (docs/persistence.md, "Migration from the first wave"). The stores themselves
// are retired; their layouts live on only here and in the code that reads them.

/**
 * The first wave's directory store: `conversations/<source>.json` (the whole record),
 * `inbox/<source>/<time>-<order>-<hash>.json` (one file per waiting message, in name order) and
 * `claims/<hash>` (one file per event id).
 */
export async function writeFirstWaveFiles(
  directory: string,
  data: {
    readonly conversations?: readonly FirstWaveConversation[];
    /** Waiting messages, in inbox order. */
    readonly inbox?: readonly InboxItem[];
    /** Event ids claimed (the inbox's are claimed too). */
    readonly claimed?: readonly string[];
  },
): Promise<void> {
  for (const folder of ['conversations', 'inbox', 'claims']) {
    await mkdir(path.join(directory, folder), { recursive: true });
  }
  for (const conversation of data.conversations ?? []) {
    const file = path.join(directory, 'conversations', `${encodeURIComponent(conversation.sourceId)}.json`);
    await writeFile(file, JSON.stringify(conversation));
  }
  for (const [order, item] of (data.inbox ?? []).entries()) {
    const folder = path.join(directory, 'inbox', encodeURIComponent(item.source.id));
    await mkdir(folder, { recursive: true });
    // Named by acceptance time and order in the first wave: here the order stands for both.
    const name = `${String(order).padStart(15, '0')}-${String(order).padStart(9, '0')}-${hash(item.eventId)}.json`;
    await writeFile(path.join(folder, name), JSON.stringify(item));
  }
  for (const eventId of [...(data.inbox ?? []).map((item) => item.eventId), ...(data.claimed ?? [])]) {
    await writeFile(path.join(directory, 'claims', hash(eventId)), '1');
  }
}

/**
 * The first wave's DynamoDB `CONVERSATION` item: the whole record, its snapshot a JSON string,
 * listed in the work index while busy. Its inbox items had the layout the v2 store still writes.
 */
export async function putFirstWaveConversation(
  client: DynamoDBClient,
  tableName: string,
  conversation: FirstWaveConversation,
): Promise<void> {
  await client.send(
    new PutItemCommand({
      TableName: tableName,
      Item: {
        pk: { S: conversation.sourceId },
        sk: { S: CONVERSATION_SORT_KEY },
        version: { N: String(conversation.version) },
        machineVersion: { N: String(conversation.machineVersion) },
        snapshot: { S: JSON.stringify(conversation.snapshot) },
        busy: { BOOL: conversation.busy },
        updatedAt: { N: String(conversation.updatedAt) },
        ...(conversation.busy && { work: { S: workShard(conversation.sourceId) } }),
      },
    }),
  );
}

function hash(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}
