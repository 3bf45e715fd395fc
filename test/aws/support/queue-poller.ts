import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/** One invocation of the worker, as the poller saw it. */
export interface PolledBatch {
  readonly records: readonly SQSRecord[];
  readonly response: SQSBatchResponse | undefined;
}

/**
 * A stand-in for Lambda's SQS event source mapping, one poller per concurrent instance:
 * receives up to `batchSize` messages, hands them to the worker as an `SQSEvent`, deletes those
 * the answer does not list as `batchItemFailures` and leaves those to come back after the
 * visibility timeout. A worker that dies ends its poller; its messages come back the same way.
 */
export class QueuePoller {
  private running = false;
  private loop: Promise<void> | undefined;
  readonly batches: PolledBatch[] = [];

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly queueArn: string,
    private readonly invoke: (event: SQSEvent) => Promise<SQSBatchResponse>,
    private readonly batchSize = 10,
  ) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const { Messages = [] } = await this.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: this.queueUrl,
            MaxNumberOfMessages: this.batchSize,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        if (Messages.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          continue;
        }
        const records: SQSRecord[] = Messages.map((message) => ({
          messageId: message.MessageId!,
          receiptHandle: message.ReceiptHandle!,
          body: message.Body ?? '',
          attributes: message.Attributes as unknown as SQSRecord['attributes'],
          messageAttributes: {},
          md5OfBody: message.MD5OfBody ?? '',
          eventSource: 'aws:sqs',
          eventSourceARN: this.queueArn,
          awsRegion: 'us-east-1',
        }));
        let response: SQSBatchResponse | undefined;
        try {
          response = await this.invoke({ Records: records });
        } catch {
          // The instance died: nothing is deleted.
          this.batches.push({ records, response: undefined });
          this.running = false;
          return;
        }
        this.batches.push({ records, response });
        const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
        const done = records.filter((record) => !failed.has(record.messageId));
        if (done.length > 0) {
          await this.sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: this.queueUrl,
              Entries: done.map((record, index) => ({
                Id: String(index),
                ReceiptHandle: record.receiptHandle,
              })),
            }),
          );
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
