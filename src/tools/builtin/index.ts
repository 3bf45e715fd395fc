export { replyTool, REPLY_TOOL_NAME } from './reply-tool.js';
export { skipTool, SKIP_TOOL_NAME } from './skip-tool.js';
