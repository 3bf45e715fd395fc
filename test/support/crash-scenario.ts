import { signBody } from '../../src/line/emulator/webhook-sender.js';
import type { startFakeLine } from './fake-line-server.js';
import type { KaiwaProcess } from './kaiwa-process.js';
import { answeredMarks, type SentMessage, type Kill } from './crash-verdict.js';

type FakeLine = Awaited<ReturnType<typeof startFakeLine>>;

/** A small seeded generator (mulberry32): a failing run can be replayed with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface CrashScenarioOptions {
  readonly random: () => number;
  readonly line: FakeLine;
  readonly channelSecret: string;
  /** The processes behind the webhook URL (a load balancer picks one that runs). */
  readonly processes: readonly KaiwaProcess[];
  /** The process SIGKILLed again and again, restarted right away each time. */
  readonly victim: KaiwaProcess;
  readonly sources: number;
  readonly messagesPerSource: number;
  /** How long the victim runs between kills: uniform in this range (ms), counted from its start. */
  readonly killEveryMs: readonly [number, number];
  /** How long the kills go on (ms); the messages are spread over this time. */
  readonly stormMs: number;
  /**
   * How the victim is interrupted: `kill` (SIGKILL, the default: nothing runs after it),
   * `terminate` (SIGTERM, as a deploy stops it: turns in progress finish, then it exits) or
   * `freeze` (SIGSTOP for `freezeMs`, then SIGCONT: a stalled VM; it is not restarted).
   */
  readonly stop?: 'kill' | 'terminate' | 'freeze';
  readonly freezeMs?: number;
  /** The kills go on past the storm until there were this many (a slow machine restarts slowly). */
  readonly minKills: number;
  /** At most this long after the last message was accepted, waiting for every answer (ms). */
  readonly quietMs: number;
}

export interface GracefulStop extends Kill {
  readonly ms: number;
}

export interface CrashScenarioRun {
  readonly messages: SentMessage[];
  /** SIGKILLs, including a graceful stop that did not end in time. */
  readonly kills: Kill[];
  /** SIGTERMs: which incarnation, when, and how long it took to exit (ms). */
  readonly stops: GracefulStop[];
  /** SIGSTOPs: which incarnation, and when it was frozen. */
  readonly freezes: Kill[];
  /** Webhook posts that did not get a 200 (the process was down or dying) and were sent again. */
  readonly webhookRetries: number;
  /** How long each restart took until `/healthz` answered (ms). */
  readonly restartMs: number[];
}

/**
 * Users and groups write to the bot while the victim is SIGKILLed every few seconds: each
 * source sends its messages one after another (a random pause between them, sometimes none,
 * so messages queue), as LINE does — a webhook that does not get a 200 is sent again, marked
 * as a redelivery, until one does. Once every message is accepted the kills stop and the run
 * waits until every message has an answer or `quietMs` passed, then 2 s more for stragglers.
 */
export async function runCrashScenario(options: CrashScenarioOptions): Promise<CrashScenarioRun> {
  const { random, line } = options;
  const messages: SentMessage[] = [];
  const kills: Kill[] = [];
  const stops: GracefulStop[] = [];
  const freezes: Kill[] = [];
  const restartMs: number[] = [];
  let webhookRetries = 0;
  let sending = true;
  const stormEnds = Date.now() + options.stormMs;
  /** The mean pause between two messages of a source, so that its messages span the storm. */
  const meanPauseMs = options.stormMs / options.messagesPerSource;

  const post = async (body: string): Promise<boolean> => {
    const running = options.processes.filter((process) => process.running);
    const target = running[Math.floor(random() * running.length)];
    if (!target) return false;
    try {
      const response = await fetch(`${target.url}/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-line-signature': signBody(body, options.channelSecret),
        },
        body,
        signal: AbortSignal.timeout(5_000),
      });
      await response.arrayBuffer();
      return response.status === 200;
    } catch {
      return false;
    }
  };

  const source = async (index: number) => {
    const kind = index % 3 === 2 ? 'group' : 'user';
    const userName = `user-${index}`;
    const { userId, chatId } = line.emulator.registerSpeaker(
      userName,
      kind === 'group' ? { kind: 'group', name: `group-${index}` } : undefined,
    );
    const lineSource =
      kind === 'group' ? { type: 'group', groupId: chatId, userId } : { type: 'user', userId };
    for (let position = 0; position < options.messagesPerSource; position++) {
      // A quarter of the messages follow the one before at once: they queue behind its turn.
      const pause = random() < 0.25 ? 0 : random() * (8 / 3) * meanPauseMs;
      await sleep(pause);
      const mark = `s${index}m${position}`;
      const timestamp = Date.now();
      const event = {
        type: 'message',
        mode: 'active',
        timestamp,
        source: lineSource,
        webhookEventId: `01CRASH${String(index).padStart(4, '0')}${String(position).padStart(4, '0')}${String(timestamp).slice(-11)}`,
        deliveryContext: { isRedelivery: false },
        replyToken: line.emulator.issueReplyToken(chatId),
        message: {
          type: 'text',
          id: String(timestamp * 100 + index),
          quoteToken: `quote-${mark}`,
          text: `hello ${mark}`,
        },
      };
      let body = JSON.stringify({ destination: line.emulator.botUserId, events: [event] });
      while (!(await post(body))) {
        // The test ended (timed out) and took the processes down: nothing will accept it.
        if (options.processes.every((process) => process.disposed)) return;
        webhookRetries++;
        body = JSON.stringify({
          destination: line.emulator.botUserId,
          events: [{ ...event, deliveryContext: { isRedelivery: true } }],
        });
        await sleep(200 + random() * 300);
      }
      messages.push({ mark, chatId, source: index, position, sentAt: timestamp, acceptedAt: Date.now() });
    }
  };

  const killLoop = async () => {
    while (
      !options.victim.disposed &&
      (sending || Date.now() < stormEnds || kills.length + stops.length + freezes.length < options.minKills)
    ) {
      await sleep(options.killEveryMs[0] + random() * (options.killEveryMs[1] - options.killEveryMs[0]));
      const instance = options.victim.instance;
      if (options.stop === 'freeze') {
        freezes.push({ instance, time: Date.now() });
        await options.victim.freeze(options.freezeMs ?? 5_000);
        continue;
      }
      if (options.stop === 'terminate') {
        const stopping = Date.now();
        if (!(await options.victim.terminate())) kills.push({ instance, time: Date.now() });
        stops.push({ instance, time: stopping, ms: Date.now() - stopping });
      } else {
        kills.push({ instance, time: Date.now() });
        await options.victim.kill();
      }
      const restarting = Date.now();
      await options.victim.start();
      restartMs.push(Date.now() - restarting);
    }
  };

  const killing = killLoop();
  await Promise.all(Array.from({ length: options.sources }, (_unused, index) => source(index)));
  sending = false;
  // The kills go on until the storm ends: the last messages' turns run under them too.
  await killing;

  const answered = () => {
    const marks = answeredMarks(line.requests);
    return messages.every((message) => marks.has(message.mark));
  };
  const quietEnds = Date.now() + options.quietMs;
  while (!answered() && Date.now() < quietEnds) await sleep(100);
  await sleep(2_000);
  return { messages, kills, stops, freezes, webhookRetries, restartMs };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
