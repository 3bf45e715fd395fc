import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

/**
 * Reads a table's stream on DynamoDB Local the way Lambda's event source mapping does
 * (ListStreams → DescribeStream → GetShardIterator → GetRecords, shard by shard, in order)
 * and shapes the records as a Lambda `DynamoDBStreamEvent`.
 */
export class StreamReader {
  private streamArn = '';
  private readonly iterators = new Map<string, string | undefined>();
  /** The last record read from each shard. */
  private readonly lastSequence = new Map<string, string>();

  constructor(
    private readonly client: DynamoDBStreamsClient,
    private readonly tableName: string,
  ) {}

  static forLocal(endpoint: string, tableName: string): StreamReader {
    const client = new DynamoDBStreamsClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'kaiwalocal', secretAccessKey: 'kaiwalocal' },
    });
    return new StreamReader(client, tableName);
  }

  /** Starts at the oldest record still in the stream. */
  async open(): Promise<void> {
    const { Streams = [] } = await this.client.send(new ListStreamsCommand({ TableName: this.tableName }));
    const arn = Streams[0]?.StreamArn;
    if (!arn) throw new Error(`table ${this.tableName} has no stream`);
    this.streamArn = arn;
    await this.discoverShards();
  }

  /** The records written since the last read, oldest first, as Lambda would deliver them. */
  async read(): Promise<DynamoDBRecord[]> {
    await this.discoverShards();
    const records: DynamoDBRecord[] = [];
    for (const [shardId, iterator] of this.iterators) {
      let current = iterator;
      while (current) {
        let page;
        try {
          page = await this.client.send(new GetRecordsCommand({ ShardIterator: current }));
        } catch (error) {
          // DynamoDB Local now and then refuses an iterator it handed out (trimmed, expired): go
          // on after the last record read, as Lambda's poller does with its checkpoint.
          const name = (error as { name?: string }).name;
          if (name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException') throw error;
          current = await this.iteratorAfter(shardId);
          continue;
        }
        const batch = page.Records ?? [];
        records.push(...batch.map((record) => this.toLambdaRecord(record)));
        const last = batch.at(-1)?.dynamodb?.SequenceNumber;
        if (last) this.lastSequence.set(shardId, last);
        current = page.NextShardIterator;
        // An empty page means "caught up" for an open shard: keep the iterator for the next read.
        if (batch.length === 0) break;
      }
      this.iterators.set(shardId, current);
    }
    return records;
  }

  private async iteratorAfter(shardId: string): Promise<string | undefined> {
    const after = this.lastSequence.get(shardId);
    const { ShardIterator } = await this.client.send(
      new GetShardIteratorCommand({
        StreamArn: this.streamArn,
        ShardId: shardId,
        ShardIteratorType: after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
        ...(after && { SequenceNumber: after }),
      }),
    );
    return ShardIterator;
  }

  /** Reads until `enough` says the records so far suffice (stream records appear shortly after the write). */
  async readUntil(
    enough: (records: DynamoDBRecord[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<DynamoDBRecord[]> {
    const records: DynamoDBRecord[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      records.push(...(await this.read()));
      if (enough(records)) return records;
      if (Date.now() > deadline)
        throw new Error(`stream: only ${records.length} records after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  event(records: readonly DynamoDBRecord[]): DynamoDBStreamEvent {
    return { Records: [...records] };
  }

  close(): void {
    this.client.destroy();
  }

  private async discoverShards() {
    const { StreamDescription } = await this.client.send(
      new DescribeStreamCommand({ StreamArn: this.streamArn }),
    );
    for (const shard of StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || this.iterators.has(shard.ShardId)) continue;
      const { ShardIterator } = await this.client.send(
        new GetShardIteratorCommand({
          StreamArn: this.streamArn,
          ShardId: shard.ShardId,
          ShardIteratorType: 'TRIM_HORIZON',
        }),
      );
      this.iterators.set(shard.ShardId, ShardIterator);
    }
  }

  private toLambdaRecord(record: _Record): DynamoDBRecord {
    const stream = record.dynamodb ?? {};
    return {
      eventID: record.eventID,
      eventName: record.eventName,
      eventVersion: record.eventVersion,
      eventSource: 'aws:dynamodb',
      awsRegion: record.awsRegion,
      eventSourceARN: this.streamArn,
      dynamodb: {
        ...(stream.ApproximateCreationDateTime && {
          ApproximateCreationDateTime: Math.floor(stream.ApproximateCreationDateTime.getTime() / 1000),
        }),
        Keys: stream.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
        SequenceNumber: stream.SequenceNumber,
        SizeBytes: stream.SizeBytes,
        StreamViewType: stream.StreamViewType,
      },
    };
  }
}

/** Inserts of inbox items: what the function's event filter lets through on AWS. */
export function inboxInserts(records: readonly DynamoDBRecord[]): DynamoDBRecord[] {
  return records.filter(
    (record) => record.eventName === 'INSERT' && record.dynamodb?.Keys?.sk?.S?.startsWith('INBOX#'),
  );
}
