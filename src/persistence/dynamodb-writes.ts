import {
  BatchWriteCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { backoffDelay, sleep as delay } from '../timing/index.js';
import { isTransientCancellation } from './dynamodb-cancellation.js';

/** DynamoDB's limit on actions in one TransactWriteItems. */
export const MAX_TRANSACTION_ACTIONS = 100;
const MAX_BATCH_WRITE = 25;
/** Attempts of a transaction cancelled for transient reasons (conflict, throttling). */
const TRANSACTION_ATTEMPTS = 4;
const BATCH_ATTEMPTS = 8;

export type TransactionPut = NonNullable<
  NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Put']
>;
export type TransactionUpdate = NonNullable<
  NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Update']
>;

/** A table and the document client that reaches it: what the store's helpers write with. */
export interface TableClient {
  readonly documents: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * Sends a transaction, again after a short jittered pause when DynamoDB cancelled it only
 * because another transaction held an item or capacity ran short. The SDK reuses its
 * client request token on its own retries, so a transaction retried after a lost answer is
 * not applied twice.
 */
export async function transactWrite(
  documents: DynamoDBDocumentClient,
  input: TransactWriteCommandInput,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await documents.send(new TransactWriteCommand(input));
      return;
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isTransientCancellation(error)) throw error;
      await delay(jitteredDelay(attempt));
    }
  }
}

/** Deletes items in batches of 25, re-sending what DynamoDB left unprocessed (throttled). */
export function batchDelete(
  documents: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly { pk: string; sk: string }[],
): Promise<void> {
  return batchWrite(
    documents,
    tableName,
    keys.map((key) => ({ DeleteRequest: { Key: key } })),
  );
}

/** Puts items in batches of 25 (unconditional), re-sending what DynamoDB left unprocessed. */
export function batchPut(
  documents: DynamoDBDocumentClient,
  tableName: string,
  items: readonly Record<string, unknown>[],
): Promise<void> {
  return batchWrite(
    documents,
    tableName,
    items.map((item) => ({ PutRequest: { Item: item } })),
  );
}

type WriteRequest =
  { DeleteRequest: { Key: Record<string, unknown> } } | { PutRequest: { Item: Record<string, unknown> } };

async function batchWrite(
  documents: DynamoDBDocumentClient,
  tableName: string,
  all: readonly WriteRequest[],
): Promise<void> {
  for (let start = 0; start < all.length; start += MAX_BATCH_WRITE) {
    let requests: WriteRequest[] = all.slice(start, start + MAX_BATCH_WRITE);
    for (let attempt = 1; requests.length > 0; attempt++) {
      if (attempt > 1) await delay(jitteredDelay(attempt));
      const { UnprocessedItems } = await documents.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
      );
      const left = UnprocessedItems?.[tableName] ?? [];
      if (left.length > 0 && attempt >= BATCH_ATTEMPTS) {
        throw new Error(`DynamoDB left ${left.length} writes unprocessed after ${attempt} attempts`);
      }
      requests = left.flatMap((request): WriteRequest[] => {
        if (request.DeleteRequest?.Key) return [{ DeleteRequest: { Key: request.DeleteRequest.Key } }];
        if (request.PutRequest?.Item) return [{ PutRequest: { Item: request.PutRequest.Item } }];
        return [];
      });
    }
  }
}

function jitteredDelay(attempt: number): number {
  return backoffDelay(attempt, { baseMs: 50, maxMs: 1_000 });
}
