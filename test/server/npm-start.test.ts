import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';

const root = path.resolve(import.meta.dirname, '../..');
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: { start: string };
  engines: { node: string };
};
/** The file `npm start` runs: `tsx <entry>`. */
const entry = packageJson.scripts.start.replace(/^tsx\s+/, '');

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
  const child = spawn(node, ['--import', 'tsx', entry], {
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
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

describe('npm start', () => {
  it('starts with no configuration, serves /healthz and chats through the emulator, then stops cleanly', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-start-'));
    directories.push(dataDir);
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
});
