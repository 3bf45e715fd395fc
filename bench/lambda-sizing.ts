import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { SQSEvent } from 'aws-lambda';
import { DynamoDbSourceStore } from '../src/persistence/index.js';
import { startDynamoDbLocal } from '../test/support/dynamodb-local.js';
import { startFakeLine } from '../test/support/fake-line-server.js';
import { startFakeSsm } from '../test/aws/support/fake-ssm-server.js';
import { envelopePeakMb, lambdaEnvelope } from './lambda-envelope.js';
import { SIZING_MB, packageLambdas, packagedFunction, runBundle } from './lambda-bundles.js';

// The worker at each memory size, as deployed: the packaged worker bundle in a fresh Node.js
// process, inside a Lambda-sized envelope (bench/lambda-envelope.ts: the vCPU share and memory
// Lambda gives that size, as a CFS quota and a memory limit), drains real inboxes in DynamoDB
// Local and replies to a fake LINE with the offline model (zero model latency: only kaiwa's own
// work is timed). Each round gives every conversation one more message, then one worker process
// runs one SQS invocation per conversation, as the event source mapping hands them over; its
// first invocation composes the runtime (SSM, clients), the others are turns in a warm container.

export interface SizingFigures {
  readonly memoryMb: number;
  /** Whether the envelope held (root with cgroup v1); otherwise only the CPU columns mean anything. */
  readonly enveloped: boolean;
  readonly round: number;
  /** The bundle's import: Lambda's init phase (wall, in the envelope). */
  readonly initMs: number;
  /** The first invocation: composing the runtime and its first turn (wall). */
  readonly firstInvocationMs: number;
  /** Median wall time of the later half of the invocations, one turn each. */
  readonly turnMedianMs: number;
  /** The same turns' CPU (user + system), median. */
  readonly turnCpuMedianMs: number;
  readonly turns: number;
  /** Peak memory: the process's own (RSS) and the envelope's (page cache included). */
  readonly maxRssMb: number;
  readonly envelopePeakMb: number | undefined;
}

export async function measureWorkerSizing(options: { sources?: number; rounds?: number } = {}) {
  const sources = options.sources ?? 16;
  const rounds = options.rounds ?? 2;
  await packageLambdas();
  const worker = await packagedFunction('worker');
  const [local, line] = await Promise.all([startDynamoDbLocal(), startFakeLine()]);
  const ssm = await startFakeSsm({
    '/kaiwa/bench/line-channel-secret': line.emulator.channelSecret,
    '/kaiwa/bench/line-channel-access-token': line.emulator.channelAccessToken,
    '/kaiwa/bench/gemini-api-key': '',
  });
  const figures: SizingFigures[] = [];
  try {
    for (const memoryMb of SIZING_MB) {
      const table = await local.createTable();
      const store = new DynamoDbSourceStore({ client: local.client, tableName: table, workIndex: false });
      const env = {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'kaiwalocal',
        AWS_SECRET_ACCESS_KEY: 'kaiwalocal',
        AWS_ENDPOINT_URL_SSM: ssm.url,
        DYNAMODB_ENDPOINT: local.endpoint,
        DYNAMODB_TABLE: table,
        STORE: 'dynamodb',
        LOG_LEVEL: 'warn',
        KAIWA_SSM_LINE_CHANNEL_SECRET: '/kaiwa/bench/line-channel-secret',
        KAIWA_SSM_LINE_CHANNEL_ACCESS_TOKEN: '/kaiwa/bench/line-channel-access-token',
        LINE_API_BASE_URL: line.url,
        LINE_DATA_API_BASE_URL: line.url,
        KAIWA_REMINDER_SCHEDULE_GROUP: 'reminders',
        KAIWA_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
        KAIWA_REMINDER_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:reminder',
        // As serverless.yml sets them: a turn starts only while its deadline fits the invocation.
        KAIWA_TURN_DEADLINE_MS: '120000',
        KAIWA_WORKER_PERSIST_MARGIN_MS: '10000',
      };
      const sourceIds = Array.from(
        { length: sources },
        (_, index) => `U${String(memoryMb).padStart(4, '0')}${String(index).padStart(28, '0')}`,
      );
      for (let round = 1; round <= rounds; round++) {
        for (const id of sourceIds) {
          await store.accept({
            eventId: randomUUID(),
            source: { kind: 'user', id },
            sender: { userId: id },
            // About the size of a chat message; the conversation grows each round.
            text: `message ${round}: ${'what should I cook tonight with rice, eggs and spinach? '.repeat(3)}`,
            timestamp: Date.now(),
            replyToken: line.emulator.issueReplyToken(id),
          });
        }
        const cgroup = await lambdaEnvelope(memoryMb);
        const run = await runBundle(worker.bundlePath, {
          env,
          events: await Promise.all(
            sourceIds.map(async (sourceId) => workEvent(sourceId, (await store.inbox(sourceId))[0]!.key)),
          ),
          // The template's Lambda timeout.
          remainingMs: 150_000,
          ...(cgroup && { cgroup }),
        });
        const failed = run.invocations.find(
          (invocation) =>
            invocation.error !== undefined ||
            (invocation.result as { batchItemFailures?: unknown[] } | undefined)?.batchItemFailures
              ?.length !== 0,
        );
        if (failed)
          throw new Error(`worker invocation failed: ${failed.error ?? JSON.stringify(failed.result)}`);
        // The later half: V8 has compiled the hot paths by then, as in a container that has run a while.
        const warm = run.invocations.slice(Math.floor(run.invocations.length / 2));
        figures.push({
          memoryMb,
          enveloped: cgroup !== undefined,
          round,
          initMs: run.initMs,
          firstInvocationMs: run.invocations[0]!.wallMs,
          turnMedianMs: median(warm.map((invocation) => invocation.wallMs)),
          turnCpuMedianMs: median(warm.map((invocation) => invocation.cpuMs)),
          turns: run.invocations.length,
          maxRssMb: run.maxRssMb,
          envelopePeakMb: cgroup ? await envelopePeakMb(cgroup) : undefined,
        });
      }
    }
    const replies = line.emulator.entries().filter((entry) => entry.from === 'bot').length;
    if (replies !== SIZING_MB.length * rounds * sources) {
      throw new Error(`${replies} replies for ${SIZING_MB.length * rounds * sources} turns`);
    }
    return { figures, replies };
  } finally {
    await Promise.all([local.stop(), line.close(), ssm.close()]);
  }
}

/** One work-queue message for the source, as the event source mapping hands it to the worker. */
function workEvent(sourceId: string, inboxKey: string): SQSEvent {
  return {
    Records: [
      {
        messageId: randomUUID(),
        receiptHandle: randomUUID(),
        body: '{}',
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(Date.now()),
          SenderId: 'pipe',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
          MessageGroupId: sourceId,
          // The Pipe sets the inbox item's key: the worker reports the message failed while it waits.
          MessageDeduplicationId: inboxKey,
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:kaiwa-work.fifo',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function formatSizingFigures(figures: readonly SizingFigures[]): string {
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  return [
    '| memory | round | init (import) | first invocation | turn, median | turn CPU, median | peak RSS | envelope peak |',
    '|---|---|---|---|---|---|---|---|',
    ...figures.map(
      (figure) =>
        `| ${figure.memoryMb} MB${figure.enveloped ? '' : ' (no envelope)'} | ${figure.round} | ${ms(figure.initMs)} | ${ms(figure.firstInvocationMs)} | ${ms(figure.turnMedianMs)} | ${figure.turnCpuMedianMs.toFixed(1)} ms | ${figure.maxRssMb.toFixed(0)} MiB | ${figure.envelopePeakMb === undefined ? '—' : `${figure.envelopePeakMb.toFixed(0)} MiB`} |`,
    ),
  ].join('\n');
}

// `npx tsx bench/lambda-sizing.ts`: prints the table (docs/PERFORMANCE.md, "Lambda sizing").
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  measureWorkerSizing().then(
    ({ figures, replies }) => {
      console.log(formatSizingFigures(figures));
      console.log(`\n${replies} replies on the fake LINE; Node.js ${process.version}`);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
