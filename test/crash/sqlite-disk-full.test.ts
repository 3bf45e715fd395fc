import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/line/emulator/webhook-sender.js';
import { answeredMarks, judgeCrashRun, type SentMessage } from '../support/crash-verdict.js';
import { startEchoGemini } from '../support/echo-gemini.js';
import type { FakeGeminiServer } from '../support/fake-gemini-server.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { fakeServicesEnv, KaiwaProcess } from '../support/kaiwa-process.js';
import { until } from '../support/until.js';

// `npm start` on SQLite when its disk fills up mid-run: the data directory is a small tmpfs,
// filled by another file while turns are between their model call and their checkpoint. A
// webhook that cannot be stored is answered 500 (LINE redelivers it); a turn whose checkpoint
// cannot be written waits and goes on; once there is room again everything is answered once,
// by the model, and the process never died (docs/runtime.md, "Fenced side effects").

const CHANNEL_SECRET = 'disk-full-channel-secret';
const REPLY_TOKEN_TTL_MS = 50_000;

const dataDir = mkdtempSync(path.join(tmpdir(), 'kaiwa-disk-full-'));
/** A real filesystem that runs out of space; mounting needs root, which CI has. */
const mounted = mountTmpfs(dataDir, '8m');
const filler = path.join(dataDir, 'filler');

let line: Awaited<ReturnType<typeof startFakeLine>>;
let gemini: FakeGeminiServer;
let kaiwa: KaiwaProcess | undefined;

beforeAll(async () => {
  line = await startFakeLine();
  gemini = await startEchoGemini(() => 400);
});

afterAll(async () => {
  await kaiwa?.dispose();
  await gemini?.close();
  await line?.close();
  if (mounted) execFileSync('umount', ['-l', dataDir]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe.runIf(mounted)('npm start on SQLite when the disk is full', () => {
  it('answers 500 to what it cannot store, then answers everything once', { timeout: 120_000 }, async () => {
    const services = { line, gemini, channelSecret: CHANNEL_SECRET, replyTokenTtlMs: REPLY_TOKEN_TTL_MS };
    kaiwa = await KaiwaProcess.create(
      'A',
      fakeServicesEnv(services, 'A', { STORE: 'sqlite', DATA_DIR: dataDir }),
    );
    await kaiwa.start();
    const users = ['a', 'b', 'c'].map((name) => line.emulator.registerSpeaker(`user-${name}`));
    const messages: SentMessage[] = [];
    let count = 0;
    /** A text message event of `user`, marked for the echo model; sent again as a redelivery. */
    const event = (user: (typeof users)[number], mark = `s${users.indexOf(user)}m${count++}`) => ({
      mark,
      body: (isRedelivery: boolean) =>
        JSON.stringify({
          destination: line.emulator.botUserId,
          events: [
            {
              type: 'message',
              mode: 'active',
              timestamp: Date.now(),
              source: { type: 'user', userId: user.userId },
              webhookEventId: `01DISKFULL${mark.toUpperCase().padStart(16, '0')}`,
              deliveryContext: { isRedelivery },
              replyToken: line.emulator.issueReplyToken(user.chatId),
              message: {
                type: 'text',
                id: String(1_000_000 + count),
                quoteToken: `q-${mark}`,
                text: `hello ${mark}`,
              },
            },
          ],
        }),
    });
    const post = async (body: string) => {
      const response = await fetch(`${kaiwa!.url}/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-line-signature': signBody(body, CHANNEL_SECRET) },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    };
    const accepted = (mark: string, user: (typeof users)[number]) =>
      messages.push({
        mark,
        chatId: user.chatId,
        source: users.indexOf(user),
        position: messages.filter((message) => message.chatId === user.chatId).length,
        sentAt: Date.now(),
        acceptedAt: Date.now(),
      });
    // Room to spare: one message each, answered.
    for (const user of users) {
      const { mark, body } = event(user);
      expect(await post(body(false))).toBe(200);
      accepted(mark, user);
    }
    await until(() => messages.every(({ mark }) => answeredMarks(line.requests).has(mark)), 30_000);

    // One message each, accepted; while the model thinks (400 ms) the disk fills up.
    for (const user of users) {
      const { mark, body } = event(user);
      expect(await post(body(false))).toBe(200);
      accepted(mark, user);
    }
    fillDisk(filler);

    // Full: messages are stored until SQLite needs a page more, then refused with a 500.
    const refused: { mark: string; user: (typeof users)[number]; body: (redelivery: boolean) => string }[] =
      [];
    for (let attempt = 0; attempt < 300 && refused.length < 3; attempt++) {
      const user = users[attempt % users.length]!;
      // A source whose message was refused sends nothing more until it is stored, as on LINE.
      if (refused.some((each) => each.user === user)) continue;
      const { mark, body } = event(user);
      const status = await post(body(false));
      if (status === 200) accepted(mark, user);
      else {
        expect(status).toBe(500);
        refused.push({ mark, user, body });
      }
    }
    expect(refused.length).toBeGreaterThan(0);
    // The turns in flight meet the full disk at their checkpoints, and wait.
    await until(
      () => kaiwa!.lines.some((entry) => /disk is full/.test(entry) && /source step failed/.test(entry)),
      20_000,
    );
    expect((await fetch(`${kaiwa.url}/healthz`)).status).toBe(200);

    // Room again: LINE redelivers what was refused; everything is answered.
    rmSync(filler);
    for (const { mark, user, body } of refused) {
      expect(await post(body(true))).toBe(200);
      accepted(mark, user);
    }
    await until(() => messages.every(({ mark }) => answeredMarks(line.requests).has(mark)), 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const verdict = judgeCrashRun({
      messages,
      kills: [],
      requests: line.requests,
      chatOfReplyToken: line.chatOfReplyToken,
      replyTokenTtlMs: REPLY_TOKEN_TTL_MS,
      markerWindowMs: 1_500,
    });
    expect(verdict.problems, kaiwa.output()).toEqual([]);
    expect(verdict.answered).toBe(messages.length);
    expect(verdict.windowDuplicates).toBe(0);
    // The same process throughout: a full disk never took it down.
    expect(kaiwa.incarnation).toBe(1);
    expect(kaiwa.running).toBe(true);
  });
});

function mountTmpfs(directory: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', directory], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('sqlite-disk-full: cannot mount a tmpfs here (not root?); the test is skipped');
    return false;
  }
}

/** Writes `file` until the filesystem has no room left. */
function fillDisk(file: string) {
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (;;) {
      writeFileSync(file, chunk, { flag: 'a' });
      written += chunk.length;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  // What is left is smaller than a chunk: fill it too.
  try {
    for (;;) writeFileSync(file, Buffer.alloc(1024, 1), { flag: 'a' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  return written;
}
