import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  UpdateCommand,
  paginateQuery,
} from '@aws-sdk/lib-dynamodb';
import type { OwnerIdentity } from '../actors/index.js';
import type { Clock } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
// Leaf modules, not the barrel: the Lambda worker loads this, and never the local stores.
import { RUNNING_BACKGROUND_PARTITION } from '../persistence/dynamodb-table.js';
import type { SourceOwner } from '../persistence/source-store.js';
import { readChecked } from '../persistence/stored-records.js';
import { isBackgroundCall, type BackgroundCall, type BackgroundLedger } from '../tools/index.js';

export interface DynamoDbBackgroundLedgerOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** This process: its pieces carry it, their heartbeats renewed a third of its lease apart. */
  readonly owner: OwnerIdentity;
  /** Whether another owner's process is dead before its lease ran out (same host, PID gone). */
  readonly isOwnerGone: (owner: SourceOwner) => boolean;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The tools' background work still running, noted in kaiwa's DynamoDB table for every process
 * that shares it (`npm start` on DynamoDB, the Lambda worker): one item a piece in the
 * `BACKGROUND#RUNNING` partition, with its process as owner and a heartbeat renewed like a
 * source's lease. A piece whose owner is gone — its lease ran out, or its PID is dead on this
 * host — was left by a process that died (SIGKILL, a machine lost, a Lambda sandbox that died
 * mid-invocation): any process reports it interrupted to its conversation (docs/design-notes.md,
 * "Background work"). A process that only stalls past its lease has its work reported too; its
 * outcome then finds the inbox item claimed, and its heartbeat stops.
 */
export class DynamoDbBackgroundLedger implements BackgroundLedger {
  private readonly documents: DynamoDBDocumentClient;
  /** This process's pieces, by sort key: renewed until they are struck. */
  private readonly mine = new Map<string, BackgroundCall>();
  /** Items that do not read back, logged once each: every sweep meets them again. */
  private readonly unreadable = new Set<string>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: DynamoDbBackgroundLedgerOptions) {
    this.documents = DynamoDBDocumentClient.from(options.client);
    this.heartbeat = setInterval(() => void this.renew(), Math.max(1_000, options.owner.leaseMs / 3));
    this.heartbeat.unref();
  }

  async note(call: BackgroundCall): Promise<void> {
    const { owner, clock, tableName } = this.options;
    const sk = sortKeyOf(call);
    await this.documents.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: RUNNING_BACKGROUND_PARTITION,
          sk,
          call: JSON.stringify(call),
          ownerId: owner.ownerId,
          ownerHost: owner.host,
          ownerPid: owner.pid,
          heartbeatAt: clock.now(),
          leaseMs: owner.leaseMs,
        },
      }),
    );
    // Renewed once written: a heartbeat before would find no item, and stop.
    this.mine.set(sk, call);
  }

  async strike(call: BackgroundCall): Promise<void> {
    const sk = sortKeyOf(call);
    this.mine.delete(sk);
    await this.documents.send(
      new DeleteCommand({ TableName: this.options.tableName, Key: { pk: RUNNING_BACKGROUND_PARTITION, sk } }),
    );
  }

  async leftBehind(): Promise<readonly BackgroundCall[]> {
    const { owner: me, isOwnerGone, clock, logger, tableName } = this.options;
    const now = clock.now();
    const left: BackgroundCall[] = [];
    const pages = paginateQuery(
      { client: this.documents },
      {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': RUNNING_BACKGROUND_PARTITION },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const owner: SourceOwner = {
          ownerId: String(item.ownerId),
          host: String(item.ownerHost),
          pid: Number(item.ownerPid),
          heartbeatAt: Number(item.heartbeatAt),
          leaseMs: Number(item.leaseMs),
        };
        if (owner.ownerId === me.ownerId) continue;
        // A heartbeat that does not read as a number is never current: its piece is reported.
        const leaseRanOut = !(owner.heartbeatAt + owner.leaseMs >= now);
        if (!leaseRanOut && !isOwnerGone(owner)) continue;
        const read = readChecked<BackgroundCall>(
          () => JSON.parse(String(item.call)),
          (value) => (isBackgroundCall(value) ? undefined : 'not a call'),
        );
        const sk = String(item.sk);
        if (read.value) left.push(read.value);
        else if (!this.unreadable.has(sk)) {
          this.unreadable.add(sk);
          logger.error('background work item cannot be read; left in the table, not reported', {
            table: tableName,
            sk,
            error: read.error,
          });
        }
      }
    }
    return left;
  }

  /** Stops renewing; the pieces still noted are the caller's to report or strike first. */
  close(): void {
    clearInterval(this.heartbeat);
  }

  private async renew(): Promise<void> {
    const { owner, clock, logger, tableName } = this.options;
    for (const [sk, call] of this.mine) {
      try {
        await this.documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: RUNNING_BACKGROUND_PARTITION, sk },
            UpdateExpression: 'SET heartbeatAt = :now',
            ConditionExpression: 'ownerId = :me',
            ExpressionAttributeValues: { ':now': clock.now(), ':me': owner.ownerId },
          }),
        );
      } catch (error) {
        const log = { tool: call.toolName, sourceId: call.source.id };
        if (error instanceof ConditionalCheckFailedException) {
          // Struck meanwhile, or reported by another process after a stall: nothing to renew.
          this.mine.delete(sk);
          logger.info('background work no longer noted; its heartbeat stops', log);
        } else {
          logger.warn('background work heartbeat not written; tried again shortly', { ...log, error });
        }
      }
    }
  }
}

function sortKeyOf(call: BackgroundCall): string {
  return `${call.source.id}#${call.idempotencyKey}`;
}
