import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function run(mode: 'rejection' | 'exception') {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/server/fixtures/guarded-process.ts', mode],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout })),
  );
}

const logLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the process guards of npm start', () => {
  it('log an unhandled rejection with its context — not its payload — and keep the process running', async () => {
    const { code, stdout } = await run('rejection');

    expect(code).toBe(0);
    expect(stdout).toContain('still alive');
    expect(logLines(stdout)).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'unhandled promise rejection; kaiwa keeps running',
        error: expect.objectContaining({
          name: 'TypeError',
          message: 'terminated',
          stack: expect.stringContaining('guarded-process.ts') as string,
          cause: expect.objectContaining({ name: 'SocketError', code: 'UND_ERR_SOCKET' }) as object,
        }) as object,
      }),
    ]);
    expect(stdout).not.toContain('payload-with-token-abc123');
  });

  it('log an uncaught exception, then stop in order', async () => {
    const { code, stdout } = await run('exception');

    expect(code).toBe(3);
    expect(stdout).toContain('stopping in order');
    expect(stdout).not.toContain('ran on after the exception');
    expect(logLines(stdout)).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'uncaught exception; kaiwa stops in order',
        origin: 'uncaughtException',
        error: expect.objectContaining({ name: 'TypeError' }) as object,
      }),
    ]);
    expect(stdout).not.toContain('payload-with-token-abc123');
  });
});
