import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/** A model call in a worker process: the first of a turn, with the turn's last user text. */
export interface ModelCall {
  readonly at: number;
  readonly text: string;
  readonly pid: number;
}

export interface WorkerProcess {
  /** Invokes the handler in that process; resolves with its answer (or rejects with its error). */
  invoke(event: SQSEvent, remainingMs?: number): Promise<SQSBatchResponse>;
  /** SIGKILL: the instance dies mid-whatever, as a crashed Lambda instance does. */
  kill(): Promise<void>;
}

/** A worker Lambda instance in a process of its own (`worker-process.ts`), configured by `env`. */
export async function startWorkerProcess(
  env: Record<string, string>,
  onModelCall: (call: ModelCall) => void = () => {},
): Promise<WorkerProcess> {
  const child: ChildProcess = fork(path.join(import.meta.dirname, 'worker-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<
    number,
    { resolve: (value: SQSBatchResponse) => void; reject: (error: Error) => void }
  >();
  let nextId = 0;
  child.on(
    'message',
    (
      message: { type: string; id?: number; result?: SQSBatchResponse; error?: string } & Partial<ModelCall>,
    ) => {
      if (message.type === 'model') onModelCall(message as ModelCall);
      if (message.type !== 'result' || message.id === undefined) return;
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error));
      else waiter?.resolve(message.result!);
    },
  );
  child.on('exit', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('the worker process died'));
    pending.clear();
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) =>
      reject(new Error(`worker process exited with ${String(code)} before it was ready`)),
    );
  });
  return {
    invoke(event, remainingMs = 60_000) {
      const id = ++nextId;
      return new Promise<SQSBatchResponse>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, event, remainingMs });
      });
    },
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
