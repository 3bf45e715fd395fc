import { describe, expect, it } from 'vitest';
import { workerRuntimeProvider } from '../../src/aws/index.js';
import { OfflineModel } from '../../src/model/index.js';
import { defineTool, type Tool } from '../../src/tools/index.js';

// What a cold worker does before its first turn (docs/PERFORMANCE.md, "Tool schemas compiled on
// a tool's first call, on Lambda"). Composing needs no network: the secrets are given directly.
const env = {
  LINE_CHANNEL_SECRET: 'worker-runtime-secret',
  LINE_CHANNEL_ACCESS_TOKEN: 'worker-runtime-token',
  STORE: 'dynamodb',
  DYNAMODB_TABLE: 'kaiwa-test',
  AWS_REGION: 'us-east-1',
  KAIWA_REMINDER_SCHEDULE_GROUP: 'reminders',
  KAIWA_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
  KAIWA_REMINDER_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:reminder',
};

const echo = defineTool({
  name: 'echo',
  description: 'Says the text back.',
  category: 'test',
  optional: true,
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  response: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
}).implement((args) => Promise.resolve({ forLLM: { text: args.text } }));

describe('the Lambda worker runtime', () => {
  it('composes without compiling any tool schema: each tool is compiled on its first call', async () => {
    let prepared = 0;
    const counted: Tool = {
      ...echo,
      prepare: (compiler) => {
        prepared++;
        return echo.prepare(compiler);
      },
    };

    const runtime = await workerRuntimeProvider(env, { model: new OfflineModel(), tools: [counted] })();

    expect(runtime.config.store.kind).toBe('dynamodb');
    expect(prepared).toBe(0);
  });
});
