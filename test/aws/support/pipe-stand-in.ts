import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { parse } from 'yaml';
import type { StreamReader } from './stream-reader.js';

/** What the EventBridge Pipe in serverless.yml does with a stream record. */
export interface PipeDefinition {
  /** The source's filter patterns (EventBridge event patterns), parsed. */
  readonly filters: readonly unknown[];
  /** JSON paths into the record: the FIFO message group id and deduplication id. */
  readonly messageGroupId: string;
  readonly messageDeduplicationId: string;
}

interface PipeResource {
  Type: string;
  Properties: {
    SourceParameters: { FilterCriteria: { Filters: { Pattern: string }[] } };
    TargetParameters: { SqsQueueParameters: { MessageGroupId: string; MessageDeduplicationId: string } };
  };
}

/**
 * The pipe as serverless.yml declares it (the only `AWS::Pipes::Pipe`), so the stand-in and the
 * template cannot drift apart. CloudFormation's short tags (`!GetAtt`, `!Sub`) are read as
 * plain values: the parts used here are literals.
 */
export async function pipeFromTemplate(
  file = path.join(import.meta.dirname, '..', '..', '..', 'serverless.yml'),
): Promise<PipeDefinition> {
  const template = parse(await readFile(file, 'utf8'), { logLevel: 'silent' }) as {
    resources: { Resources: Record<string, PipeResource> };
  };
  const pipes = Object.values(template.resources.Resources).filter(
    (resource) => resource.Type === 'AWS::Pipes::Pipe',
  );
  if (pipes.length !== 1) throw new Error(`serverless.yml has ${pipes.length} pipes, not one`);
  const { SourceParameters, TargetParameters } = pipes[0]!.Properties;
  return {
    filters: SourceParameters.FilterCriteria.Filters.map((filter) => JSON.parse(filter.Pattern) as unknown),
    messageGroupId: TargetParameters.SqsQueueParameters.MessageGroupId,
    messageDeduplicationId: TargetParameters.SqsQueueParameters.MessageDeduplicationId,
  };
}

/**
 * Whether an event matches an EventBridge event pattern — the subset the pipe's filter uses:
 * nested objects, and arrays of allowed values that are literals or `{ prefix }`.
 */
export function matchesPattern(pattern: unknown, event: unknown): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((allowed: unknown) => {
      if (allowed !== null && typeof allowed === 'object' && 'prefix' in allowed) {
        return typeof event === 'string' && event.startsWith(String(allowed.prefix));
      }
      return allowed === event;
    });
  }
  if (pattern === null || typeof pattern !== 'object') throw new Error('unsupported pattern');
  if (event === null || typeof event !== 'object') return false;
  return Object.entries(pattern).every(([key, inner]) =>
    matchesPattern(inner, (event as Record<string, unknown>)[key]),
  );
}

/** `$.a.b.c` into a value; the pipe fails a record whose path resolves to nothing. */
export function jsonPath(expression: string, value: unknown): string {
  if (!expression.startsWith('$.')) throw new Error(`not a JSON path: ${expression}`);
  let current: unknown = value;
  for (const key of expression.slice(2).split('.')) {
    current =
      current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined;
  }
  if (typeof current !== 'string') throw new Error(`${expression} is not a string in the record`);
  return current;
}

/**
 * SQS FIFO's rule for a message group id and a deduplication id: 1–128 characters, letters,
 * digits and ASCII punctuation. fauxqs does not check it; SQS refuses the send
 * (`InvalidParameterValue`), and the Pipe then retries the record for a day, holding its shard.
 */
const SQS_FIFO_ID = /^[0-9A-Za-z!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

/** The group and deduplication ids the pipe sends for `record`, checked as SQS checks them. */
function fifoIds(definition: PipeDefinition, record: DynamoDBRecord) {
  const ids = {
    MessageGroupId: jsonPath(definition.messageGroupId, record),
    MessageDeduplicationId: jsonPath(definition.messageDeduplicationId, record),
  };
  for (const [name, value] of Object.entries(ids)) {
    if (!SQS_FIFO_ID.test(value)) {
      throw Object.assign(
        new Error(`Value ${value} for parameter ${name} is invalid (${value.length} characters)`),
        {
          name: 'InvalidParameterValue',
        },
      );
    }
  }
  return ids;
}

/**
 * A stand-in for the EventBridge Pipe: reads the table's stream in order (as the Pipe's
 * DynamoDB source does), keeps the records the filter matches, and sends each to the FIFO queue
 * as the Pipe's SQS target does — the record as JSON for the body, the group and deduplication
 * ids from the template's JSON paths.
 */
export class PipeStandIn {
  private running = false;
  private loop: Promise<void> | undefined;
  /** Records sent, in order. */
  readonly sent: DynamoDBRecord[] = [];
  /** When each of them was handed to SQS (epoch ms). */
  readonly sentAt: number[] = [];
  /** Reads or sends that failed (and were tried again). */
  readonly errors: unknown[] = [];

  constructor(
    private readonly reader: StreamReader,
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly definition: PipeDefinition,
  ) {}

  /** Forwards one record as the pipe would (also used to show that the queue drops a duplicate). */
  async forward(record: DynamoDBRecord): Promise<void> {
    if (!this.definition.filters.some((filter) => matchesPattern(filter, record))) return;
    const at = Date.now();
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(record),
        ...fifoIds(this.definition, record),
      }),
    );
    this.sent.push(record);
    this.sentAt.push(at);
  }

  start(pollMs = 50): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          for (const record of await this.reader.read()) await this.forward(record);
        } catch (error) {
          // The Pipe retries a batch it could not read or send; so does the stand-in.
          this.errors.push(error);
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/**
 * The SQS records Lambda's event source mapping would hand the worker for these stream
 * records, once the pipe has sent them (first delivery).
 */
export function deliveredRecords(
  records: readonly DynamoDBRecord[],
  definition: PipeDefinition,
  queueArn: string,
): SQSRecord[] {
  return records.map((record, index) => {
    const now = String(Date.now());
    const { MessageGroupId, MessageDeduplicationId: deduplicationId } = fifoIds(definition, record);
    return {
      messageId: `m-${index}-${deduplicationId}`,
      receiptHandle: `r-${index}`,
      body: JSON.stringify(record),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: now,
        SenderId: 'pipe',
        ApproximateFirstReceiveTimestamp: now,
        MessageGroupId,
        MessageDeduplicationId: deduplicationId,
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    };
  });
}
