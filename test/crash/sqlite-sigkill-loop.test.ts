import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrashScenario, seededRandom } from '../support/crash-scenario.js';
import { judgeCrashRun } from '../support/crash-verdict.js';
import { startEchoGemini } from '../support/echo-gemini.js';
import type { FakeGeminiServer } from '../support/fake-gemini-server.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { fakeServicesEnv, KaiwaProcess, loggedAt } from '../support/kaiwa-process.js';

// `npm start` on its embedded store (SQLite), SIGKILLed every 1–4 s and restarted at once while
// users and groups write to it, against a fake LINE as strict as LINE and the real Gemini client
// talking to a fake Gemini that takes 50–500 ms per call (docs/runtime.md, sections 1–4).

const SEED = Number(process.env.CRASH_SEED ?? 20261123);
const CHANNEL_SECRET = 'crash-test-channel-secret';
/**
 * kaiwa's reply token TTL, and LINE's lifetime 10 s above it, as with the defaults (50 s, 60 s);
 * short, so that answers delayed by restarts are pushed within the test's bounds.
 */
const REPLY_TOKEN_TTL_MS = 10_000;
const LINE_TOKEN_LIFETIME_MS = REPLY_TOKEN_TTL_MS + 10_000;
/** LINE's latency here (at most 300 ms), the answer's way back and the marker's write on a loaded machine. */
const MARKER_WINDOW_MS = 1_500;

let line: Awaited<ReturnType<typeof startFakeLine>>;
let gemini: FakeGeminiServer;
let dataDir: string;
let kaiwa: KaiwaProcess | undefined;

beforeAll(async () => {
  const random = seededRandom(SEED + 1);
  line = await startFakeLine({
    replyTokenLifetimeMs: LINE_TOKEN_LIFETIME_MS,
    // LINE answers a reply or a push in tens to hundreds of ms: a kill meanwhile loses the answer.
    messageLatencyMs: () => 30 + random() * 270,
  });
  gemini = await startEchoGemini(() => 50 + random() * 450);
  dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-crash-'));
});

afterAll(async () => {
  await kaiwa?.dispose();
  await gemini?.close();
  await line?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('npm start on SQLite, SIGKILLed every 1–4 s', () => {
  // About 50–90 s; a loaded machine restarts slowly, and the kills go on until there were four.
  it('answers every message once, with the model, in order', { timeout: 240_000 }, async () => {
    const started = Date.now();
    const services = { line, gemini, channelSecret: CHANNEL_SECRET, replyTokenTtlMs: REPLY_TOKEN_TTL_MS };
    kaiwa = await KaiwaProcess.create(
      'A',
      fakeServicesEnv(services, 'A', { STORE: 'sqlite', DATA_DIR: dataDir }),
    );
    await kaiwa.start();

    const run = await runCrashScenario({
      random: seededRandom(SEED),
      line,
      channelSecret: CHANNEL_SECRET,
      processes: [kaiwa],
      victim: kaiwa,
      sources: 12,
      messagesPerSource: 8,
      killEveryMs: [1_000, 4_000],
      stormMs: 30_000,
      minKills: 4,
      quietMs: 30_000,
    });
    const verdict = judgeCrashRun({
      ...run,
      requests: line.requests,
      chatOfReplyToken: line.chatOfReplyToken,
      replyTokenTtlMs: REPLY_TOKEN_TTL_MS,
      markerWindowMs: MARKER_WINDOW_MS,
    });
    console.info('sqlite SIGKILL loop', {
      seed: SEED,
      seconds: Math.round((Date.now() - started) / 1000),
      webhookRetries: run.webhookRetries,
      restartMs: run.restartMs,
      modelCalls: gemini.generateBodies.length,
      loggedErrors: loggedAt('error', [kaiwa]).length,
      loggedWarnings: loggedAt('warn', [kaiwa]).length,
      ...verdict,
    });

    // CRASH_LOG=file keeps what the processes logged, for a failing run.
    if (process.env.CRASH_LOG)
      await writeFile(process.env.CRASH_LOG, [kaiwa].flatMap((each) => each.lines).join('\n'));
    expect(verdict.problems, kaiwa.output()).toEqual([]);
    expect(gemini.rejections).toEqual([]);
    expect(verdict.kills).toBeGreaterThanOrEqual(4);
    expect(verdict.answered).toBe(verdict.messages);
    // Each duplicate is a reply cut by a kill (the window), never more than those.
    expect(verdict.windowDuplicates).toBeLessThanOrEqual(verdict.cutReplies);
  });
});
