import type { SQSEvent, SQSRecord } from 'aws-lambda';

/** One work-queue message: "this source has work", for one inbox item. */
export interface WorkMessage {
  readonly messageId: string;
  /** What SQS needs to change the message's visibility. */
  readonly receiptHandle: string;
  /**
   * The inbox item's key (its sort key, ending with the event id), which the Pipe sets as the
   * deduplication id; undefined for a message sent by hand.
   */
  readonly inboxKey: string | undefined;
}

/** The messages of one message group (one source) in a batch, in the queue's order. */
export interface WorkGroup {
  readonly sourceId: string;
  readonly messages: readonly WorkMessage[];
}

/**
 * A FIFO batch by message group, groups in order of first appearance and each group's
 * messages in the queue's order. The group id is the source id (the Pipe sets it from the
 * record's partition key). A message with no group id cannot come from a FIFO queue; it is
 * returned apart, so the handler can log it and let it go (the inbox, not the queue, holds
 * the user's messages: nothing is lost).
 */
export function workGroups(event: SQSEvent): { groups: WorkGroup[]; malformed: SQSRecord[] } {
  const groups = new Map<string, WorkMessage[]>();
  const malformed: SQSRecord[] = [];
  for (const record of event.Records) {
    const sourceId = record.attributes.MessageGroupId;
    if (!sourceId) {
      malformed.push(record);
      continue;
    }
    const messages = groups.get(sourceId) ?? [];
    messages.push({
      messageId: record.messageId,
      receiptHandle: record.receiptHandle,
      inboxKey: inboxKeyOf(record),
    });
    groups.set(sourceId, messages);
  }
  return {
    groups: [...groups].map(([sourceId, messages]) => ({ sourceId, messages })),
    malformed,
  };
}

function inboxKeyOf(record: SQSRecord): string | undefined {
  if (record.attributes.MessageDeduplicationId) return record.attributes.MessageDeduplicationId;
  // The Pipe's body is the stream record itself.
  try {
    const body = JSON.parse(record.body) as { dynamodb?: { Keys?: { sk?: { S?: unknown } } } };
    const key = body.dynamodb?.Keys?.sk?.S;
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}
