import { pathToFileURL } from 'node:url';
import { DynamoDbStore } from '../src/persistence/index.js';
import { reminderMessage } from '../src/reminders/reminder.js';
import { startDynamoDbLocal } from '../test/support/dynamodb-local.js';
import { startFakeLine } from '../test/support/fake-line-server.js';
import { startFakeSsm } from '../test/aws/support/fake-ssm-server.js';
import { SIZING_MB, cpuBoundMsAt, packageLambdas, packagedFunction, runBundle } from './lambda-bundles.js';

// The worker's CPU per turn, as deployed: the packaged worker bundle in a fresh Node.js process
// drains real inboxes in DynamoDB Local, replies to a fake LINE, with the offline model (no
// Gemini key: zero model latency, so only kaiwa's own work is timed). Each round gives every
// source one more message, then runs one worker process that invokes the handler once per source;
// the first invocation of a process composes the runtime (SSM, clients), the others are turns
// in a warm container. What a turn costs on Lambda is the model's wait plus this CPU stretched by
// the memory size's vCPU share (`cpuBoundMsAt`).

export interface TurnCpuFigures {
  readonly round: number;
  /** The first invocation of a fresh container: composition and the first turn. */
  readonly firstInvocationCpuMs: number;
  /** Median CPU of the later half of the invocations, one turn each: a container past its warm-up. */
  readonly turnCpuMedianMs: number;
  readonly turns: number;
  /** The worker process's peak resident memory, MiB. */
  readonly maxRssMb: number;
}

export async function measureWorkerTurns(options: { sources?: number; rounds?: number } = {}) {
  const sources = options.sources ?? 24;
  const rounds = options.rounds ?? 3;
  await packageLambdas();
  const worker = await packagedFunction('worker');
  const [local, line] = await Promise.all([startDynamoDbLocal(), startFakeLine()]);
  const ssm = await startFakeSsm({
    '/kaiwa/bench/line-channel-secret': line.emulator.channelSecret,
    '/kaiwa/bench/line-channel-access-token': line.emulator.channelAccessToken,
  });
  try {
    const table = await local.createTable();
    const store = new DynamoDbStore({ client: local.client, tableName: table });
    const env = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'kaiwalocal',
      AWS_SECRET_ACCESS_KEY: 'kaiwalocal',
      AWS_ENDPOINT_URL_SSM: ssm.url,
      DYNAMODB_ENDPOINT: local.endpoint,
      DYNAMODB_TABLE: table,
      STORE: 'dynamodb',
      LOG_LEVEL: 'silent',
      KAIWA_SSM_LINE_CHANNEL_SECRET: '/kaiwa/bench/line-channel-secret',
      KAIWA_SSM_LINE_CHANNEL_ACCESS_TOKEN: '/kaiwa/bench/line-channel-access-token',
      LINE_API_BASE_URL: line.url,
      LINE_DATA_API_BASE_URL: line.url,
      KAIWA_RETRY_SCHEDULE_GROUP: 'retries',
      KAIWA_REMINDER_SCHEDULE_GROUP: 'reminders',
      KAIWA_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
      KAIWA_REMINDER_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:reminder',
    };
    const sourceIds = Array.from({ length: sources }, (_, index) => `U${String(index).padStart(32, '0')}`);
    const figures: TurnCpuFigures[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const id of sourceIds) {
        await store.accept(
          reminderMessage(
            {
              id: `r${round}`,
              source: { kind: 'user', id },
              // About the size of a chat message with some context: the conversation grows each round.
              text: `message ${round}: ${'what should I cook tonight with rice, eggs and spinach? '.repeat(3)}`,
              dueAt: Date.now(),
              createdAt: Date.now(),
            },
            Date.now(),
          ),
        );
      }
      const run = await runBundle(worker.bundlePath, {
        env,
        events: sourceIds.map((sourceId) => ({ kaiwa: 'retry', sourceId, attempt: 1 })),
        remainingMs: 60_000,
      });
      const failed = run.invocations.find((invocation) => invocation.error !== undefined);
      if (failed) throw new Error(`worker invocation failed: ${failed.error}`);
      // The later half: V8 has compiled the hot paths by then, as in a container that has run a while.
      const warm = run.invocations
        .slice(Math.floor(run.invocations.length / 2))
        .map((invocation) => invocation.cpuMs)
        .sort((a, b) => a - b);
      figures.push({
        round,
        firstInvocationCpuMs: run.invocations[0]!.cpuMs,
        turnCpuMedianMs: warm[Math.floor(warm.length / 2)]!,
        turns: run.invocations.length,
        maxRssMb: run.maxRssMb,
      });
    }
    const replies = line.emulator.entries().filter((entry) => entry.from === 'bot').length;
    return { figures, replies };
  } finally {
    await Promise.all([local.stop(), line.close(), ssm.close()]);
  }
}

export function formatTurnFigures(figures: readonly TurnCpuFigures[]): string {
  return [
    `| round (turn of each conversation) | first invocation CPU | CPU per turn, median | ${SIZING_MB.map((memoryMb) => `turn CPU at ${memoryMb} MB`).join(' | ')} | peak RSS |`,
    `|---|---|---|${SIZING_MB.map(() => '---|').join('')}---|`,
    ...figures.map(
      (figure) =>
        `| ${figure.round} | ${figure.firstInvocationCpuMs.toFixed(0)} ms | ${figure.turnCpuMedianMs.toFixed(1)} ms | ${SIZING_MB.map((memoryMb) => `${cpuBoundMsAt(figure.turnCpuMedianMs, memoryMb).toFixed(0)} ms`).join(' | ')} | ${figure.maxRssMb.toFixed(0)} MiB |`,
    ),
  ].join('\n');
}

// `npx tsx bench/lambda-sizing.ts`: prints the table (docs/PERFORMANCE.md, "Lambda sizing").
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  measureWorkerTurns().then(
    ({ figures, replies }) => {
      console.log(formatTurnFigures(figures));
      console.log(`\n${replies} replies on the fake LINE; Node.js ${process.version}`);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
