import type { Tool } from '../tool.js';

export const SKIP_TOOL_NAME = 'skip';

/** `skip(reason)`: ends the turn deliberately without a message (a group chat aside, say). */
export const skipTool: Tool = {
  name: SKIP_TOOL_NAME,
  description: 'End this turn without sending anything to the user.',
  category: 'conversation',
  optional: false,
  sideEffects: false,
  usageHint:
    'Call it when the message needs no answer from you, for example talk between other people in a group.',
  examples: [
    { description: 'Group members talking among themselves', args: { reason: 'not addressed to me' } },
  ],
  parameters: {
    type: 'object',
    properties: {
      reason: { type: 'string', minLength: 1, maxLength: 500, description: 'Why no reply is sent' },
    },
    required: ['reason'],
    additionalProperties: false,
  },
  response: {
    type: 'object',
    properties: { status: { type: 'string', enum: ['skipped'] } },
    required: ['status'],
    additionalProperties: false,
  },
  execute: () => Promise.resolve({ forLLM: { status: 'skipped' }, silent: true }),
};
