import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signBody } from '../../src/line/emulator/webhook-sender.js';
import { dynamoDbLocalRequired, startDynamoDbLocal, type DynamoDbLocal } from '../support/dynamodb-local.js';
import { startEchoGemini } from '../support/echo-gemini.js';
import type { FakeGeminiServer } from '../support/fake-gemini-server.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { textEvent } from '../support/kaiwa-under-test.js';
import { fakeServicesEnv, KaiwaProcess, loggedAt } from '../support/kaiwa-process.js';
import { webhookBody } from '../support/webhook-fixtures.js';

// Two `npm start` processes on one DynamoDB table; one dies for good in the middle of a turn and
// is not restarted (a machine lost, a scale-in). The other must take up what the dead one held:
// before, recovery ran only at a process's own start, so the message waited for ever — or until
// the user wrote again.

const CHANNEL_SECRET = 'dead-peer-channel-secret';
const LEASE_MS = 3_000;

describe.skipIf(!dynamoDbLocalRequired())('npm start on DynamoDB when a peer dies for good', () => {
  let dynamodb: DynamoDbLocal;
  let line: Awaited<ReturnType<typeof startFakeLine>>;
  let gemini: FakeGeminiServer;
  const processes: KaiwaProcess[] = [];

  beforeAll(async () => {
    dynamodb = await startDynamoDbLocal();
    line = await startFakeLine();
    gemini = await startEchoGemini(() => 2_000);
  });

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.dispose()));
    await gemini?.close();
    await line?.close();
    await dynamodb?.stop();
  });

  /** Two processes on a fresh table, answering in 2 s, with a 3 s lease. */
  async function twoProcesses() {
    const table = await dynamodb.createTable();
    const services = { line, gemini, channelSecret: CHANNEL_SECRET, replyTokenTtlMs: 50_000 };
    const environment = (name: string) =>
      fakeServicesEnv(services, name, {
        STORE: 'dynamodb',
        DYNAMODB_ENDPOINT: dynamodb.endpoint,
        DYNAMODB_TABLE: table,
        AWS_REGION: 'us-east-1',
        KAIWA_LEASE_MS: String(LEASE_MS),
        KAIWA_LINE_TIMEOUT_MS: '1000',
        KAIWA_TOOL_TIMEOUT_MS: '1000',
      });
    const pair = await Promise.all(['A', 'B'].map((name) => KaiwaProcess.create(name, environment(name))));
    processes.push(...pair);
    await Promise.all(pair.map((process) => process.start()));
    return pair;
  }

  async function send(to: KaiwaProcess, userId: string, text: string) {
    const body = JSON.stringify(webhookBody([textEvent(line, { type: 'user', userId }, text) as never]));
    const posted = await fetch(`${to.url}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-line-signature': signBody(body, CHANNEL_SECRET) },
      body,
    });
    expect(posted.status).toBe(200);
  }

  /** What LINE was asked to send, replies and pushes, that answers the source numbered `source`. */
  const answersTo = (source: number) =>
    [...line.requestsTo('/v2/bot/message/reply'), ...line.requestsTo('/v2/bot/message/push')]
      .map((request) => JSON.stringify(request.body))
      .filter((body) => body.includes(`re: s${source}m`));

  /** Kills `doomed` once the model is thinking about the `nth` request (2 s): mid-turn. */
  async function killMidTurn(doomed: KaiwaProcess, nth: number) {
    await vi.waitFor(() => expect(gemini.generateBodies).toHaveLength(nth), { timeout: 10_000 });
    await doomed.kill();
  }

  it('the survivor answers the message the dead process was answering', { timeout: 120_000 }, async () => {
    const [doomed, survivor] = await twoProcesses();
    const userId = 'U' + '7'.repeat(32);
    const before = gemini.generateBodies.length;
    await send(doomed!, userId, 's0m0 hello');
    await killMidTurn(doomed!, before + 1);

    await vi.waitFor(() => expect(answersTo(0)).toEqual([expect.stringContaining('re: s0m0')]), {
      timeout: 8 * LEASE_MS,
      interval: 200,
    });
    expect(loggedAt('error', [survivor!])).toEqual([]);
  });

  it(
    '…also when the survivor has the chat in memory from an earlier turn',
    { timeout: 120_000 },
    async () => {
      // Idle in the survivor's memory, the source was not its to look at: it waited for eviction.
      const [survivor, doomed] = await twoProcesses();
      const userId = 'U' + '8'.repeat(32);
      await send(survivor!, userId, 's1m0 first');
      await vi.waitFor(() => expect(answersTo(1)).toHaveLength(1), { timeout: 10_000 });

      const before = gemini.generateBodies.length;
      await send(doomed!, userId, 's1m1 second');
      await killMidTurn(doomed!, before + 1);

      await vi.waitFor(
        () =>
          expect(answersTo(1)).toEqual([
            expect.stringContaining('re: s1m0'),
            expect.stringContaining('re: s1m1'),
          ]),
        {
          timeout: 8 * LEASE_MS,
          interval: 200,
        },
      );
      expect(loggedAt('error', [survivor!])).toEqual([]);
    },
  );
});
