import { createWorkerHandler, workerRuntimeProvider, type WorkerEvent } from '../../../src/aws/index.js';
import { lambdaContext } from './lambda-events.js';

// One Lambda instance of the worker as its own OS process: the parent sends events over IPC,
// as Lambda would invoke the handler, and gets the handler's answer back. All configuration
// comes from the environment, as on Lambda (AWS_ENDPOINT_URL_SCHEDULER points the real
// Scheduler client at the fake one).

interface Invocation {
  readonly id: number;
  readonly event: WorkerEvent;
  readonly remainingMs: number;
}

const handler = createWorkerHandler(workerRuntimeProvider(process.env));

process.on('message', (invocation: Invocation) => {
  handler(invocation.event, lambdaContext(invocation.remainingMs)).then(
    (result) => process.send?.({ type: 'result', id: invocation.id, result }),
    (error: unknown) =>
      process.send?.({
        type: 'result',
        id: invocation.id,
        error: error instanceof Error ? error.message : String(error),
      }),
  );
});
process.send?.({ type: 'ready' });
