import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../../src/line/emulator/webhook-sender.js';
import { FakeGeminiServer, replyAnswer } from '../support/fake-gemini-server.js';
import { startFakeLine } from '../support/fake-line-server.js';
import { startHostileServer } from '../support/hostile-http-server.js';
import { until } from '../support/until.js';

const root = path.resolve(import.meta.dirname, '../..');
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: { start: string };
  engines: { node: string };
};
/** What `npm start` runs after `tsx`: Node.js flags, then the entry file. */
const startArguments = packageJson.scripts.start.split(/\s+/).slice(1);

/** A Node.js older than 22 on this machine (Debian's, say), to start kaiwa with. */
function olderNode(): { path: string; version: string } | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const version = execFileSync(candidate, ['-v'], { encoding: 'utf8' }).trim();
      if (Number(/^v(\d+)/.exec(version)?.[1]) < 22) return { path: candidate, version };
    } catch {
      // not installed there
    }
  }
  return undefined;
}

/** `npm start`'s entry point, run as its own process with a clean environment. */
function startProcess(env: Record<string, string>, node = process.execPath) {
  const child = spawn(node, ['--import', 'tsx', ...startArguments], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

const children: ChildProcess[] = [];
const directories: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

describe('npm start', () => {
  it('starts with no configuration, serves /healthz and chats through the emulator, then stops cleanly', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'kaiwa-start-'));
    directories.push(parent);
    // As on a fresh clone: the data directory does not exist yet.
    const dataDir = path.join(parent, 'not-yet', '.data');
    const started = startProcess({ PORT: '0', DATA_DIR: dataDir });
    children.push(started.child);

    const url = await until(() => /open (http:\/\/127\.0\.0\.1:\d+)/.exec(started.output().stdout)?.[1]);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', model: 'offline', line: 'emulator' });
    expect((await fetch(url)).headers.get('content-type')).toContain('text/html');

    const sent = await fetch(`${url}/emulator/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        chat: { kind: 'user', name: 'Aiko' },
        userName: 'Aiko',
        text: 'hello from the smoke test',
      }),
    });
    expect(await sent.json()).toMatchObject({ webhookStatus: 200 });
    const reply = await until(async () => {
      const { entries } = (await (await fetch(`${url}/emulator/api/transcript`)).json()) as {
        entries: { from: string; text: string }[];
      };
      return entries.find((entry) => entry.from === 'bot');
    });
    expect(reply.text).toContain('hello from the smoke test');
    expect(reply.text).toContain('offline model');

    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(existsSync(path.join(dataDir, 'kaiwa.db'))).toBe(true);
  });

  const older = olderNode();
  it.skipIf(older === undefined)(
    'on an older Node.js, says which version it needs in one line and exits 1',
    async () => {
      const started = startProcess({ PORT: '0', STORE: 'memory' }, older!.path);
      children.push(started.child);

      expect(await started.exited).toBe(1);
      const required = packageJson.engines.node.replace(/^>=\s*/, '>= ');
      expect(started.output()).toEqual({
        stdout: '',
        stderr: `kaiwa needs Node.js ${required} (this is ${older!.version})\n`,
      });
    },
  );

  it('fails with one clear line naming the variable when the configuration is invalid', async () => {
    const started = startProcess({ PORT: 'eighty' });
    children.push(started.child);

    expect(await started.exited).toBe(1);
    const { stderr } = started.output();
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('PORT');
    expect(stderr).not.toContain('    at ');
  });

  it('on DynamoDB it cannot reach, says which endpoint in one line and exits 1', async () => {
    // Port 9 (discard) has no listener here: the connection is refused at once.
    const started = startProcess({
      PORT: '0',
      STORE: 'dynamodb',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
      AWS_REGION: 'us-east-1',
    });
    children.push(started.child);

    expect(await started.exited).toBe(1);
    const { stderr } = started.output();
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(
      /^kaiwa: cannot reach DynamoDB at http:\/\/127\.0\.0\.1:9 \(DYNAMODB_ENDPOINT\): /,
    );
    expect(stderr).not.toContain('    at ');
  });

  it('with DATA_DIR a file, says so in one line and exits 1', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-start-'));
    directories.push(dataDir);
    const file = path.join(dataDir, 'not-a-directory');
    await writeFile(file, 'x');
    const started = startProcess({ PORT: '0', DATA_DIR: file });
    children.push(started.child);

    expect(await started.exited).toBe(1);
    const { stderr } = started.output();
    expect(stderr.trim()).toBe(`kaiwa: cannot use DATA_DIR ${file}: ${file} is not a directory`);
  });

  it('stores in SQLite under DATA_DIR, and a second process on the same file refuses to start with one line', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-start-'));
    directories.push(dataDir);
    const first = startProcess({ PORT: '0', DATA_DIR: dataDir });
    children.push(first.child);
    await until(() => /open (http:\/\/127\.0\.0\.1:\d+)/.exec(first.output().stdout)?.[1]);

    const second = startProcess({ PORT: '0', DATA_DIR: dataDir });
    children.push(second.child);

    expect(await second.exited).toBe(1);
    const { stderr } = second.output();
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/kaiwa\.db is in use by process \d+/);
    expect(stderr).not.toContain('    at ');
    expect(first.child.exitCode).toBeNull();
  });
});

describe('npm start stopping', () => {
  it('waits for a turn in progress on the first Ctrl-C, and exits at once on the second', async () => {
    const gemini = await FakeGeminiServer.start();
    gemini.fallback = { hang: true }; // a model that takes its time
    closers.push(() => gemini.close());
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-start-'));
    directories.push(dataDir);
    const started = startProcess({
      PORT: '0',
      DATA_DIR: dataDir,
      GEMINI_API_KEY: 'test-key',
      GEMINI_BASE_URL: gemini.baseUrl,
      KAIWA_SHUTDOWN_DEADLINE_MS: '30000',
    });
    children.push(started.child);
    const url = await until(() => /open (http:\/\/127\.0\.0\.1:\d+)/.exec(started.output().stdout)?.[1]);
    await fetch(`${url}/emulator/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat: { kind: 'user', name: 'Aiko' }, userName: 'Aiko', text: 'hello' }),
    });
    await until(() => gemini.requestsTo('POST', '/v1beta/models/').length > 0);

    started.child.kill('SIGINT');
    // The first waits for the turn (up to KAIWA_SHUTDOWN_DEADLINE_MS: 30 s here).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(started.child.exitCode).toBeNull();
    const second = Date.now();
    started.child.kill('SIGINT');

    // Before, the second was ignored: the process went on waiting the whole deadline.
    expect(await started.exited).toBe(130);
    expect(Date.now() - second).toBeLessThan(10_000);
    expect(started.output().stdout).toContain('exiting now');

    // Nothing is lost: the message waits in the store, and the next start answers it.
    gemini.fallback = replyAnswer('Hello again, Aiko.');
    const asked = gemini.requestsTo('POST', '/v1beta/models/').length;
    const restarted = startProcess({
      PORT: '0',
      DATA_DIR: dataDir,
      GEMINI_API_KEY: 'test-key',
      GEMINI_BASE_URL: gemini.baseUrl,
    });
    children.push(restarted.child);
    const again = await until(() => /open (http:\/\/127\.0\.0\.1:\d+)/.exec(restarted.output().stdout)?.[1]);
    await until(() => gemini.requestsTo('POST', '/v1beta/models/').length > asked);
    const lastAsked = gemini.generateBodies.at(-1)?.contents?.at(-1)?.parts?.[0]?.text;
    expect(lastAsked).toContain('hello');
    expect(again).toMatch(/^http/);
  });
});

describe('npm start on a hostile network', () => {
  it('stays up when the content server drops the connection mid-image, and answers the next message', async () => {
    const secret = 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5';
    const line = await startFakeLine();
    const content = await startHostileServer(() => ({
      kind: 'drop-mid-body',
      contentType: 'image/jpeg',
      declaredBytes: 4 * 1024 * 1024,
      sentBytes: 256 * 1024,
    }));
    closers.push(() => line.close(), content.close);
    const started = startProcess({
      PORT: '0',
      STORE: 'memory',
      LOG_LEVEL: 'info',
      LINE_CHANNEL_SECRET: secret,
      LINE_CHANNEL_ACCESS_TOKEN: line.emulator.channelAccessToken,
      LINE_API_BASE_URL: line.url,
      LINE_DATA_API_BASE_URL: content.url,
    });
    children.push(started.child);
    const url = await until(
      () =>
        /"message":"kaiwa is listening".*?"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(
          started.output().stdout,
        )?.[1],
    );
    const userId = 'U' + 'f'.repeat(32);
    const post = (event: Record<string, unknown>) => {
      const body = JSON.stringify({ destination: line.emulator.botUserId, events: [event] });
      return fetch(`${url}/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-line-signature': signBody(body, secret) },
        body,
      });
    };
    const base = (id: string) => ({
      mode: 'active',
      timestamp: Date.now(),
      source: { type: 'user', userId },
      webhookEventId: `01HBLACKBOXNETWORK0000000${id}`,
      deliveryContext: { isRedelivery: false },
      replyToken: line.emulator.issueReplyToken(userId),
    });

    const image = await post({
      ...base('1'),
      type: 'message',
      message: { type: 'image', id: '424242', quoteToken: 'q-image', contentProvider: { type: 'line' } },
    });
    expect(image.status).toBe(200);
    await until(() => content.requests.length > 0);
    // The turn goes on without the image: it is answered, and the process is still there.
    await until(() => line.requestsTo('/v2/bot/message/reply').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started.child.exitCode).toBeNull();

    const text = await post({
      ...base('2'),
      type: 'message',
      message: { type: 'text', id: '424243', quoteToken: 'q-text', text: 'still there?' },
    });
    expect(text.status).toBe(200);
    const reply = await until(() => line.requestsTo('/v2/bot/message/reply')[1]);
    expect(JSON.stringify(reply.body)).toContain('still there?');
    expect(started.child.exitCode).toBeNull();
    expect(started.output().stdout).toContain('"message":"image left out"');
    expect(started.output().stdout).not.toContain('unhandled promise rejection');

    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });
});
