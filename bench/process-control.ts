import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const benchDir = import.meta.dirname;

/** Forks a TypeScript module of the benchmark as its own Node.js process. */
export function forkBench(
  module: string,
  args: string[] = [],
  env: Record<string, string> = {},
): ChildProcess {
  return fork(path.join(benchDir, module), args, {
    // node:sqlite still warns that it is experimental; the warning says nothing to a benchmark.
    execArgv: ['--import', 'tsx', '--disable-warning=ExperimentalWarning'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The next IPC message of the given type from a child. */
export function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type: string }) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as T);
    };
    const onExit = (code: number | null) =>
      reject(new Error(`benchmark process exited with ${code} before "${type}"`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Sends a child `{ type }` and resolves its answer of the same type (e.g. its memory). */
export function ask<T>(child: ChildProcess, type: string): Promise<T> {
  const answer = nextMessage<T>(child, type);
  child.send({ type });
  return answer;
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
