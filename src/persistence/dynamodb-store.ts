import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  paginateScan,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { defaults } from '../defaults/index.js';
import { isMessage, type InboundMessage, type InboxItem } from '../domain/index.js';
import type { ConversationStore, SaveRequest, StoredConversation } from './conversation-store.js';
import { failedCondition } from './dynamodb-cancellation.js';
import { readInboxTail } from './dynamodb-inbox.js';
import { MAX_ITEM_BYTES, dynamoDbItemSize } from './dynamodb-item-size.js';
import { admitToInbox } from './inbox-cap.js';
import {
  claimItem,
  conversationFromItem,
  conversationItem,
  inboxItem,
  messageFromItem,
  toEpochSeconds,
  versionOfReturnedItem,
} from './dynamodb-items.js';
import {
  CONVERSATION_SORT_KEY,
  INBOX_PREFIX,
  WORK_INDEX,
  allWorkShards,
  padNumber,
} from './dynamodb-table.js';
import {
  MAX_TRANSACTION_ACTIONS,
  batchDelete,
  transactWrite,
  type TransactionPut,
} from './dynamodb-writes.js';
import { ItemTooLargeError } from './item-too-large-error.js';
import { VersionConflictError } from './version-conflict-error.js';

export interface DynamoDbStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** How long a claimed event id is remembered (ms); default 7 days. */
  readonly claimTtlMs?: number;
  /** An idle conversation expires this long after its last save (ms); 0 or unset: never. */
  readonly conversationTtlMs?: number;
  /** Refuse conversation items larger than this (bytes); default 350 KB. */
  readonly maxItemBytes?: number;
  readonly now?: () => number;
  /** Messages waiting per source before they are counted into an overflow item (`admitToInbox`). */
  readonly maxInbox?: number;
}

/**
 * The store on one DynamoDB table (see `dynamodb-table.ts` and `docs/persistence.md`).
 * `accept` is one transaction: the conditional claim and the inbox item are written together
 * or not at all. `save` is a conditional put on the version, in one transaction with the
 * deletes of the inbox messages it consumed. Reads are strongly consistent, except
 * `sourcesWithWork`, which reads the (eventually consistent) sparse work index.
 */
export class DynamoDbStore implements ConversationStore {
  private readonly documents: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly claimTtlMs: number;
  private readonly conversationTtlMs: number;
  private readonly maxItemBytes: number;
  private readonly now: () => number;
  private readonly maxInbox: number;
  private sequence = 0;

  constructor(options: DynamoDbStoreOptions) {
    this.documents = DynamoDBDocumentClient.from(options.client);
    this.tableName = options.tableName;
    this.claimTtlMs = options.claimTtlMs ?? 7 * 24 * 3600_000;
    this.conversationTtlMs = options.conversationTtlMs ?? 0;
    this.maxItemBytes = options.maxItemBytes ?? MAX_ITEM_BYTES;
    this.now = options.now ?? Date.now;
    this.maxInbox = options.maxInbox ?? defaults.store.maxInbox;
  }

  /**
   * At `maxInbox` waiting items a message is counted into the source's overflow item instead
   * (`admitToInbox`, docs/security.md "A source's inbox"); an overflow item consumed meanwhile
   * is not brought back: the message starts a new one.
   */
  async accept(message: InboxItem): Promise<boolean> {
    const tail = isMessage(message)
      ? await readInboxTail(
          { documents: this.documents, tableName: this.tableName },
          message.source.id,
          this.maxInbox,
        )
      : undefined;
    const admission = admitToInbox(message, tail ?? { waiting: 0, last: undefined }, this.maxInbox);
    if (admission.kind === 'replace') {
      const replaced = await this.put(message.eventId, admission.item, tail!.key);
      if (replaced !== 'overflow-gone') return replaced;
      const fresh = admitToInbox(message, { waiting: this.maxInbox, last: undefined }, this.maxInbox);
      return (await this.put(message.eventId, fresh.item, undefined)) === true;
    }
    return (await this.put(message.eventId, admission.item, undefined)) === true;
  }

  /** Claims `eventId` and puts the item, new or in place of the overflow item at `replacing`. */
  private async put(
    eventId: string,
    message: InboxItem,
    replacing: string | undefined,
  ): Promise<boolean | 'overflow-gone'> {
    const now = this.now();
    try {
      await transactWrite(this.documents, {
        TransactItems: [
          {
            Put: {
              TableName: this.tableName,
              Item: claimItem(eventId, {
                now,
                expiresAtSeconds: toEpochSeconds(now + this.claimTtlMs),
              }),
              // An expired claim that TTL has not deleted yet counts as gone, as in the other stores.
              ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt <= :now',
              ExpressionAttributeNames: { '#pk': 'pk', '#expiresAt': 'expiresAt' },
              ExpressionAttributeValues: { ':now': toEpochSeconds(now) },
            },
          },
          {
            Put: {
              TableName: this.tableName,
              Item: {
                ...inboxItem(message as InboundMessage, { now, arrival: this.arrivalKey(now) }),
                ...(replacing !== undefined && { sk: replacing }),
              },
              ...(replacing !== undefined && {
                ConditionExpression: 'attribute_exists(#pk)',
                ExpressionAttributeNames: { '#pk': 'pk' },
              }),
            },
          },
        ],
      });
      return true;
    } catch (error) {
      if (failedCondition(error, 0)) return false;
      if (replacing !== undefined && failedCondition(error, 1)) return 'overflow-gone';
      throw error;
    }
  }

  async inbox(sourceId: string): Promise<InboundMessage[]> {
    const items = await this.queryInbox(sourceId, ['message']);
    return items.map(messageFromItem);
  }

  async load(sourceId: string): Promise<StoredConversation | undefined> {
    const { Item } = await this.documents.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: sourceId, sk: CONVERSATION_SORT_KEY },
        ConsistentRead: true,
      }),
    );
    return Item ? conversationFromItem(Item) : undefined;
  }

  async save(request: SaveRequest): Promise<number> {
    const now = this.now();
    const item = conversationItem(request, {
      now,
      expiresAtSeconds: this.conversationTtlMs > 0 ? toEpochSeconds(now + this.conversationTtlMs) : undefined,
    });
    const size = dynamoDbItemSize(item);
    if (size > this.maxItemBytes) throw new ItemTooLargeError(request.sourceId, size, this.maxItemBytes);
    const put: TransactionPut = {
      TableName: this.tableName,
      Item: item,
      ...(request.expectedVersion === 0
        ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } }
        : {
            ConditionExpression: '#version = :expected',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':expected': request.expectedVersion },
          }),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    };

    const consumedKeys =
      request.consumedEventIds.length === 0
        ? []
        : await this.inboxSortKeys(request.sourceId, request.consumedEventIds);
    if (consumedKeys.length === 0) {
      // No inbox change: a plain conditional put costs half a transactional write.
      try {
        await this.documents.send(new PutCommand(put));
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) throw conflict(request, error.Item);
        throw error;
      }
      return request.expectedVersion + 1;
    }

    // The oldest consumed messages go in the transaction. Past its 100 actions the rest are
    // deleted right after: a crash in between leaves messages the actor has already seen
    // (its snapshot lists recent event ids), which the host just consumes again.
    const inTransaction = consumedKeys.slice(0, MAX_TRANSACTION_ACTIONS - 1);
    try {
      await transactWrite(this.documents, {
        TransactItems: [
          { Put: put },
          ...inTransaction.map((sk) => ({
            Delete: { TableName: this.tableName, Key: { pk: request.sourceId, sk } },
          })),
        ],
      });
    } catch (error) {
      const reason = failedCondition(error, 0);
      if (reason) throw conflict(request, reason.Item);
      throw error;
    }
    await batchDelete(
      this.documents,
      this.tableName,
      consumedKeys.slice(MAX_TRANSACTION_ACTIONS - 1).map((sk) => ({ pk: request.sourceId, sk })),
    );
    return request.expectedVersion + 1;
  }

  async sourcesWithWork(): Promise<string[]> {
    const perShard = await Promise.all(
      allWorkShards().map((shard) =>
        this.query({
          IndexName: WORK_INDEX,
          KeyConditionExpression: '#work = :shard',
          ExpressionAttributeNames: { '#work': 'work' },
          ExpressionAttributeValues: { ':shard': shard },
        }),
      ),
    );
    return [...new Set(perShard.flat().map((item) => String(item.pk)))];
  }

  /** A full scan: for operators' tools and tests, never on the request path. */
  async listSources(): Promise<string[]> {
    const sources: string[] = [];
    const pages = paginateScan(
      { client: this.documents },
      {
        TableName: this.tableName,
        FilterExpression: '#sk = :conversation',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':conversation': CONVERSATION_SORT_KEY },
        ProjectionExpression: '#pk',
      },
    );
    for await (const page of pages) for (const item of page.Items ?? []) sources.push(String(item.pk));
    return sources;
  }

  async deleteSource(sourceId: string): Promise<void> {
    // Claims live under their own partition keys, so this leaves them to expire.
    const items = await this.query({
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': sourceId },
      ProjectionExpression: '#pk, #sk',
      ConsistentRead: true,
    });
    await batchDelete(
      this.documents,
      this.tableName,
      items.map((item) => ({ pk: sourceId, sk: String(item.sk) })),
    );
  }

  /** The source's inbox items, oldest first, with only the named attributes. */
  private async queryInbox(sourceId: string, attributes: readonly string[]) {
    return this.query({
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :inbox)',
      ExpressionAttributeNames: Object.fromEntries(
        ['pk', 'sk', ...attributes].map((name) => [`#${name}`, name]),
      ),
      ExpressionAttributeValues: { ':pk': sourceId, ':inbox': INBOX_PREFIX },
      ProjectionExpression: attributes.map((name) => `#${name}`).join(', '),
      ConsistentRead: true,
    });
  }

  /** The sort keys of the source's inbox items holding these event ids, oldest first. */
  private async inboxSortKeys(sourceId: string, eventIds: readonly string[]): Promise<string[]> {
    const wanted = new Set(eventIds);
    const items = await this.queryInbox(sourceId, ['sk', 'eventId']);
    return items.filter((item) => wanted.has(String(item.eventId))).map((item) => String(item.sk));
  }

  private async query(input: Omit<QueryCommandInput, 'TableName'>) {
    const items: Record<string, unknown>[] = [];
    const pages = paginateQuery({ client: this.documents }, { TableName: this.tableName, ...input });
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  }

  /** Orders messages accepted by this process within one millisecond (see `inboxSortKey`). */
  private arrivalKey(now: number): string {
    this.sequence = (this.sequence + 1) % 1_000_000;
    return `${padNumber(now, 15)}.${padNumber(this.sequence, 6)}`;
  }
}

function conflict(request: SaveRequest, returnedItem: unknown): VersionConflictError {
  return new VersionConflictError(
    request.sourceId,
    request.expectedVersion,
    versionOfReturnedItem(returnedItem),
  );
}
