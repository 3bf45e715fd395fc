import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { signedMessageWebhook } from './bench-bot.js';
import { fakeLineReplies, fakeLineStats } from './fake-line-stats.js';

// The load generator, in its own process: signed webhooks, one text message each, over a set
// of user sources. Turn t of a source is its t-th message. Two ways to load the bot:
// - rounds (closed loop): every source gets its next turn, `concurrency` requests in flight;
//   then the generator waits until the fake LINE has counted every reply before the next round,
//   so a source's turns never overlap and "turn t" means the conversation has t − 1 before it.
// - open loop: requests start at a fixed rate whatever the bot's answers, the sources in turn;
//   an ack's latency counts from the moment its request was due, so a bot falling behind shows
//   in the figures rather than slowing the load down.

/** Options shared by both kinds of load. */
interface LoadBase {
  readonly botUrl: string;
  readonly lineUrl: string;
  readonly sources: number;
  /** The first source's number: loads over other numbers talk to other conversations. */
  readonly firstSource: number;
  /** The turn number of the first request to each source. */
  readonly firstTurn: number;
  readonly label: string;
}

export interface RoundsLoad extends LoadBase {
  readonly kind: 'rounds';
  readonly rounds: number;
  readonly concurrency: number;
}

export interface OpenLoopLoad extends LoadBase {
  readonly kind: 'open-loop';
  readonly turnsPerSecond: number;
  readonly turns: number;
}

export type Load = RoundsLoad | OpenLoopLoad;

/** What a load reports: webhook acks by latency, and the time until the last reply. */
export interface LoadResult {
  readonly type: 'done';
  readonly turns: number;
  /** From the first request to the last reply counted by the fake LINE. */
  readonly elapsedMs: number;
  /** Webhook requests answered other than 200. */
  readonly failures: number;
  /** Replies that were not the model's answer (a limit notice, an apology). */
  readonly otherReplies: number;
  readonly ackP50Ms: number;
  readonly ackP99Ms: number;
  readonly ackMaxMs: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/**
 * Posts one webhook; resolves its status, 0 when it failed on the network. A request on a kept-
 * alive socket that the bot closed as idle at that very moment is sent again on a new one, as
 * Node.js's documentation advises (`reusedSocket`): the bot never read it.
 */
function post(url: string, body: string, signature: string): Promise<number> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const outgoing = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-line-signature': signature,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', () => resolve(0));
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (outgoing.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
        resolve(post(url, body, signature));
        return;
      }
      console.error(`webhook request failed: ${error.message}`);
      resolve(0);
    });
    outgoing.end(body);
  });
}

function webhookBody(label: string, source: number, turn: number) {
  return signedMessageWebhook({
    userId: `U${source.toString(16).padStart(32, '0')}`,
    webhookEventId: `${label}-${source}-${turn}-${randomUUID()}`,
    replyToken: randomUUID(),
    message: { type: 'text', id: `${source}-${turn}`, quoteToken: 'q', text: `turn ${turn}: hello` },
  });
}

async function untilReplies(lineUrl: string, count: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await fakeLineReplies(lineUrl)) < count) {
    if (Date.now() > deadline) throw new Error(`replies did not reach ${count} within 120 s`);
    await sleep(5);
  }
}

async function runRounds(load: RoundsLoad, acks: number[]): Promise<number> {
  let failures = 0;
  let expected = await fakeLineReplies(load.lineUrl);
  for (let round = 0; round < load.rounds; round++) {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(load.concurrency, load.sources) }, async () => {
        while (next < load.sources) {
          const { body, signature } = webhookBody(
            load.label,
            load.firstSource + next++,
            load.firstTurn + round,
          );
          const sent = performance.now();
          const status = await post(`${load.botUrl}/webhook`, body, signature);
          acks.push(performance.now() - sent);
          if (status === 200) expected++;
          else failures++;
        }
      }),
    );
    await untilReplies(load.lineUrl, expected);
  }
  return failures;
}

async function runOpenLoop(load: OpenLoopLoad, acks: number[], started: number): Promise<number> {
  let failures = 0;
  const expected = (await fakeLineReplies(load.lineUrl)) + load.turns;
  const requests: Promise<void>[] = [];
  const intervalMs = 1000 / load.turnsPerSecond;
  let sent = 0;
  while (sent < load.turns) {
    const due = Math.min(load.turns, Math.floor((performance.now() - started) / intervalMs) + 1);
    for (; sent < due; sent++) {
      const dueAt = started + sent * intervalMs;
      const { body, signature } = webhookBody(
        load.label,
        load.firstSource + (sent % load.sources),
        load.firstTurn + Math.floor(sent / load.sources),
      );
      requests.push(
        post(`${load.botUrl}/webhook`, body, signature).then((status) => {
          acks.push(performance.now() - dueAt);
          if (status !== 200) failures++;
        }),
      );
    }
    await sleep(1);
  }
  await Promise.all(requests);
  await untilReplies(load.lineUrl, expected - failures);
  return failures;
}

async function run(load: Load): Promise<LoadResult> {
  const acks: number[] = [];
  const before = await fakeLineStats(load.lineUrl);
  const started = performance.now();
  const failures =
    load.kind === 'rounds' ? await runRounds(load, acks) : await runOpenLoop(load, acks, started);
  const elapsedMs = performance.now() - started;
  const after = await fakeLineStats(load.lineUrl);
  acks.sort((a, b) => a - b);
  return {
    type: 'done',
    turns: acks.length,
    elapsedMs,
    failures,
    otherReplies: after.otherReplies - before.otherReplies,
    ackP50Ms: percentile(acks, 0.5),
    ackP99Ms: percentile(acks, 0.99),
    ackMaxMs: acks.at(-1) ?? Number.NaN,
  };
}

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

process.on('message', (message: { type: string; load: Load }) => {
  if (message.type === 'run') {
    run(message.load).then(
      (result) => process.send?.(result),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  }
});
process.on('disconnect', () => process.exit(0));
