import { SKIP_TOOL_NAME } from '../../domain/index.js';
import { defineTool } from '../define-tool.js';

/** `skip(reason)`: ends the turn deliberately without a message (a group chat aside, say). */
export const skipTool = defineTool({
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
}).implement(() => Promise.resolve({ forLLM: { status: 'skipped' }, silent: true }));
