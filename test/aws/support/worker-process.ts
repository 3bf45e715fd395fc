import type { SQSEvent } from 'aws-lambda';
import { createWorkerHandler, workerRuntimeProvider } from '../../../src/aws/index.js';
import { OfflineModel, type ModelPort } from '../../../src/model/index.js';
import { reportModel, reportTool } from '../../support/report-tool.js';
import { lambdaContext } from './lambda-events.js';

// One Lambda instance of the worker as its own OS process: the parent sends events over IPC,
// as Lambda would invoke the handler, and gets the handler's answer back. All configuration
// comes from the environment, as on Lambda (AWS_ENDPOINT_URL_SCHEDULER points the real
// Scheduler client at the fake one). The model is the offline one; with
// `TEST_MODEL_DELAY_MS` the first call of each turn takes that long (a slow Gemini), and
// every first call is reported to the parent with the time it started. With `TEST_REPORT_TOOL`,
// the model calls `render_report`, whose background work never ends.

interface Invocation {
  readonly id: number;
  readonly event: SQSEvent;
  readonly remainingMs: number;
}

const offline = new OfflineModel();
const delayMs = Number(process.env.TEST_MODEL_DELAY_MS ?? '0');
const model: ModelPort = {
  name: 'offline',
  async generate(request) {
    const last = request.history.at(-1);
    if (last?.role === 'user') {
      process.send?.({ type: 'model', at: Date.now(), text: last.text, pid: process.pid });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    return offline.generate(request);
  },
};

const handler = createWorkerHandler(
  workerRuntimeProvider(
    process.env,
    process.env.TEST_REPORT_TOOL
      ? { model: reportModel(), tools: [reportTool(() => new Promise(() => undefined))] }
      : { model },
  ),
);

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
