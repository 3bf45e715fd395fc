import { ChangeMessageVisibilityBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '../logging/index.js';

/** A received work-queue message, as SQS names it for a visibility change. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
}

/** Hands messages back to the work queue before their visibility timeout ends. */
export interface WorkQueueReturns {
  /**
   * Makes the messages visible again at once (visibility timeout 0): the next invocation takes
   * them now instead of after the queue's 180 s. Never throws: a message whose change failed
   * comes back after its visibility timeout, as it would have anyway.
   */
  returnNow(messages: readonly ReceivedMessage[]): Promise<void>;
}

/** An SQS client that gives up on a stalled call by itself (the invocation's end is near). */
export function sqsClientWithTimeouts(): SQSClient {
  return new SQSClient({
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 500, requestTimeout: 1000, throwOnRequestTimeout: true },
  });
}

/**
 * `ChangeMessageVisibilityBatch` with timeout 0 on the work queue, ten messages a call
 * (SQS's batch limit). Without a queue URL (`KAIWA_WORK_QUEUE_URL` unset) nothing is returned
 * early and the queue's visibility timeout applies.
 */
export function workQueueReturns(options: {
  readonly client: SQSClient;
  readonly queueUrl: string | undefined;
  readonly logger: Logger;
}): WorkQueueReturns {
  const { client, queueUrl, logger } = options;
  return {
    async returnNow(messages) {
      if (!queueUrl || messages.length === 0) return;
      for (let start = 0; start < messages.length; start += 10) {
        const chunk = messages.slice(start, start + 10);
        try {
          const { Failed = [] } = await client.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((message, index) => ({
                Id: String(index),
                ReceiptHandle: message.receiptHandle,
                VisibilityTimeout: 0,
              })),
            }),
          );
          for (const failure of Failed) {
            logger.warn('returning a work message early failed; it comes back after its visibility timeout', {
              messageId: chunk[Number(failure.Id)]?.messageId,
              code: failure.Code,
            });
          }
        } catch (error) {
          logger.warn('returning work messages early failed; they come back after their visibility timeout', {
            messages: chunk.length,
            error,
          });
        }
      }
    },
  };
}
