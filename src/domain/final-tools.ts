// The two tools that end a turn. Their names are part of the conversation's contract: the
// chart stops a turn and counts replies by them, the prompt names them, and the built-in tools
// register under them. Here, so the chart can know them without loading the tool registry
// (docs/architecture.md).

/** `reply(message)`: the only way text reaches the user. */
export const REPLY_TOOL_NAME = 'reply';

/** `skip(reason)`: the model's deliberate silence. */
export const SKIP_TOOL_NAME = 'skip';
