import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { sleep } from '../timing/index.js';

/** The sort key of a source's lease item, next to its conversation and inbox in the same partition. */
export const LEASE_SORT_KEY = 'LEASE';

export interface SourceLeasesOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** This holder's id (one per invocation). */
  readonly owner: string;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export type LeaseResult =
  { readonly acquired: true } | { readonly acquired: false; readonly heldUntil: number };

/**
 * One worker per source at a time, across Lambda instances. The stream already hands one
 * source's records to one invocation at a time; the lease covers the other triggers (a
 * scheduled retry, the sweep) that could otherwise run the same turn twice and send its reply
 * twice. Conditional writes keep the history right even without it; the lease keeps side
 * effects single. A lease lapses by itself at `leaseUntil`, so a crashed holder blocks the
 * source only until its invocation would have ended.
 */
export class SourceLeases {
  private readonly documents: DynamoDBDocumentClient;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: SourceLeasesOptions) {
    this.documents = DynamoDBDocumentClient.from(options.client);
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleep;
  }

  /** Takes the source's lease until `leaseUntil` (epoch ms), polling while another holder has it, up to `waitUntil`. */
  async acquire(sourceId: string, leaseUntil: number, waitUntil = 0): Promise<LeaseResult> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.tryAcquire(sourceId, leaseUntil);
      if (result.acquired) return result;
      const now = this.now();
      if (now >= waitUntil) return result;
      await this.sleep(Math.min(waitUntil - now, 100 * 2 ** Math.min(attempt, 4)));
    }
  }

  /** Gives the lease back; a lease that lapsed or was deleted with its source is not an error. */
  async release(sourceId: string): Promise<void> {
    try {
      await this.documents.send(
        new DeleteCommand({
          TableName: this.options.tableName,
          Key: { pk: sourceId, sk: LEASE_SORT_KEY },
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': this.options.owner },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  private async tryAcquire(sourceId: string, leaseUntil: number): Promise<LeaseResult> {
    const now = this.now();
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: {
            pk: sourceId,
            sk: LEASE_SORT_KEY,
            owner: this.options.owner,
            leaseUntil,
            // A lease left behind by a crash is deleted by TTL a day after it lapsed.
            expiresAt: Math.ceil(leaseUntil / 1000) + 86_400,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :now OR #owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':now': now, ':owner': this.options.owner },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { acquired: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return { acquired: false, heldUntil: leaseUntilOf(error.Item) ?? now };
    }
  }
}

/** `leaseUntil` of the item DynamoDB returned with the failed condition, in either shape. */
function leaseUntilOf(item: unknown): number | undefined {
  const value = (item as { leaseUntil?: unknown } | undefined)?.leaseUntil;
  if (typeof value === 'number') return value;
  const number = (value as { N?: unknown } | undefined)?.N;
  return typeof number === 'string' ? Number(number) : undefined;
}
