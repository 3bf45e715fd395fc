import { REPLY_TOOL_NAME } from '../../domain/index.js';
import { defineTool } from '../define-tool.js';

/**
 * `reply(message)`: the only way anything reaches the user (docs/design-notes.md, "Replies go
 * through a tool"). The tool checks
 * the message; the machine's `reply` service delivers it and records `sent` or an error.
 * A second call in one turn is refused by the machine before it runs.
 */
export const replyTool = defineTool({
  name: REPLY_TOOL_NAME,
  description: 'Send a message to the user in this LINE chat. Nothing reaches the user unless you call this.',
  category: 'conversation',
  optional: false,
  // Pure: it only checks the message; the machine delivers it after its own checkpoint.
  sideEffects: false,
  usageHint:
    'Call it once when a reply is wanted, with the whole message. Do not call it when no reply is needed (then call skip).',
  examples: [{ description: 'Answer a greeting', args: { message: 'Hello! How can I help?' } }],
  parameters: {
    type: 'object',
    properties: {
      message: {
        type: 'string',
        minLength: 1,
        maxLength: 5000,
        description: 'The reply message to send to the user',
      },
    },
    required: ['message'],
    additionalProperties: false,
  },
  response: {
    type: 'object',
    properties: { status: { type: 'string', enum: ['sent'], description: 'The status of the reply' } },
    required: ['status'],
    additionalProperties: false,
  },
}).implement((args) =>
  Promise.resolve(
    // Blank: LINE would show an empty bubble, or refuse it and the user gets nothing. Checked
    // here rather than by a schema pattern, which the prompt would spell out to the model.
    args.message.trim() === ''
      ? { forLLM: { error: 'the message is blank: write what the user should read' }, isError: true as const }
      : { forLLM: { status: 'sent' as const }, forUser: args.message },
  ),
);
