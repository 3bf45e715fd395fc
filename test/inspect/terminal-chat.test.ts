import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel, callReply, type ModelRequest } from '../../src/model/index.js';
import type { KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';
import { tsxScriptArguments } from '../support/npm-script.js';
import { emulatorChatId, startEmulatorKaiwa, until } from './inspect-harness.js';

const root = path.resolve(import.meta.dirname, '../..');

/** `npm run chat` (its script's flags and file), as its own process with piped stdin/stdout. */
function startChat(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...tsxScriptArguments('chat'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    say: (line: string) => child.stdin.write(`${line}\n`),
    output: () => ({ stdout, stderr }),
  };
}

const children: ChildProcessWithoutNullStreams[] = [];
const runtimes: KaiwaRuntime[] = [];
const directories: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const runtime of runtimes.splice(0)) await runtime.close();
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

const echo = () =>
  new ScriptedModel(
    [
      (request: ModelRequest) => {
        const last = request.history.findLast((entry) => entry.role === 'user');
        const who = last?.role === 'user' ? (last.sender?.displayName ?? last.sender?.userId ?? '?') : '?';
        return callReply(`re: ${last?.role === 'user' ? last.text : ''} (from ${who})`);
      },
    ],
    { repeatLast: true },
  );

describe('npm run chat', () => {
  it('connects to a running kaiwa and chats in a group as several users, through the webhook path', async () => {
    const runtime = await startEmulatorKaiwa({ model: echo() });
    runtimes.push(runtime);
    const chat = startChat(['--url', runtime.url, '--group', 'Weekend trip', '--users', 'Aiko,Ken']);
    children.push(chat.child);
    await until(() => chat.output().stdout.includes('/help'), 20_000);

    chat.say('where shall we go?');
    await until(() => /kaiwa.* › re: where shall we go\?/.test(chat.output().stdout), 20_000);
    chat.say('Ken: somewhere warm');
    await until(() => /kaiwa.* › re: somewhere warm/.test(chat.output().stdout), 20_000);
    chat.say('/as Mei');
    chat.say('count me in');
    await until(() => /kaiwa.* › re: count me in/.test(chat.output().stdout), 20_000);
    chat.child.stdin.end();

    expect(await chat.exited).toBe(0);
    const groupId = await emulatorChatId(runtime.url, 'group', 'Weekend trip');
    const users = runtime.emulator!.entries().filter((entry) => entry.from === 'user');
    expect(users.map((entry) => [entry.chatId, entry.userName, entry.text])).toEqual([
      [groupId, 'Aiko', 'where shall we go?'],
      [groupId, 'Ken', 'somewhere warm'],
      [groupId, 'Mei', 'count me in'],
    ]);
    // It went the webhook's way: the group's actor ran the turns.
    expect(
      runtime.host.snapshotOf(groupId)?.context.history.filter((entry) => entry.role === 'user'),
    ).toHaveLength(3);
  });

  it('starts kaiwa itself when none is running, and answers piped input as a 1:1 user', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-chat-'));
    directories.push(dataDir);
    const chat = startChat(['--user', 'Aiko'], { PORT: '0', DATA_DIR: dataDir });
    children.push(chat.child);

    chat.say('hello from the terminal');
    chat.child.stdin.end();

    expect(await chat.exited).toBe(0);
    const { stdout } = chat.output();
    expect(stdout).toContain('(started here)');
    expect(stdout).toMatch(/kaiwa › .*hello from the terminal/);
    expect(stdout).toContain('offline model');
    // It opened SQLite (node:sqlite): its warning is hidden, as in npm start.
    expect(chat.output().stderr).not.toContain('ExperimentalWarning');
  });

  it('answers every line of piped input before it exits, and never shows your own lines as from elsewhere', async () => {
    const runtime = await startEmulatorKaiwa({ model: echo() });
    runtimes.push(runtime);
    const chat = startChat(['--url', runtime.url, '--user', 'Aiko']);
    children.push(chat.child);

    chat.say('first line');
    chat.say('second line');
    chat.say('third line');
    chat.child.stdin.end();

    expect(await chat.exited).toBe(0);
    const { stdout } = chat.output();
    for (const line of ['first line', 'second line', 'third line']) {
      expect(stdout).toMatch(new RegExp(`kaiwa › re: ${line}`));
    }
    expect(stdout).not.toContain('(elsewhere)');
  });
});
