import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { INBOX_PREFIX } from '../persistence/dynamodb-table.js';

/** A scheduled retry of one source (EventBridge Scheduler's input). */
export interface RetryEvent {
  readonly kaiwa: 'retry';
  readonly sourceId: string;
  /** 1 for the first retry after a failure; a deferral (the source was leased) keeps its attempt. */
  readonly attempt: number;
}

/** The periodic sweep: every source the work index lists. */
export interface SweepEvent {
  readonly kaiwa: 'sweep';
}

export type WorkerEvent = DynamoDBStreamEvent | RetryEvent | SweepEvent;

export function isStreamEvent(event: unknown): event is DynamoDBStreamEvent {
  return Array.isArray((event as { Records?: unknown } | null)?.Records);
}

export function isRetryEvent(event: unknown): event is RetryEvent {
  const candidate = event as Partial<RetryEvent> | null;
  return (
    candidate?.kaiwa === 'retry' &&
    typeof candidate.sourceId === 'string' &&
    candidate.sourceId !== '' &&
    Number.isInteger(candidate.attempt) &&
    candidate.attempt! >= 0
  );
}

export function isSweepEvent(event: unknown): event is SweepEvent {
  return (event as Partial<SweepEvent> | null)?.kaiwa === 'sweep';
}

/** A source named by a stream batch, with the first record that named it (for a partial batch failure). */
export interface StreamTrigger {
  readonly sourceId: string;
  readonly sequenceNumber: string;
}

/**
 * The sources a stream batch says have work, in order of first appearance. Only inserts of
 * inbox items count: the function's event filter drops everything else on AWS, and this
 * check does the same wherever the filter is absent (DynamoDB Local, a test).
 */
export function streamTriggers(event: DynamoDBStreamEvent): StreamTrigger[] {
  const triggers = new Map<string, StreamTrigger>();
  for (const record of event.Records) {
    const sourceId = inboxInsertSource(record);
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    if (sourceId === undefined || sequenceNumber === undefined || triggers.has(sourceId)) continue;
    triggers.set(sourceId, { sourceId, sequenceNumber });
  }
  return [...triggers.values()];
}

function inboxInsertSource(record: DynamoDBRecord): string | undefined {
  if (record.eventName !== 'INSERT') return undefined;
  const keys = record.dynamodb?.Keys;
  const sortKey = keys?.sk?.S;
  const partitionKey = keys?.pk?.S;
  return sortKey?.startsWith(INBOX_PREFIX) && partitionKey ? partitionKey : undefined;
}
