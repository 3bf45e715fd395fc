export { selectTools } from './tool-selector.js';
export type { SelectionContext, ToolSelection, ToolSelectorOptions } from './tool-selector.js';
export { describeReason } from './selection-reason.js';
export type { MatchedMessage, OfferedTool, SelectionReason } from './selection-reason.js';
export { createToolFinderTool, toolsRequestedInTurn, TOOL_FINDER_NAME } from './tool-finder.js';
export type { ToolFinderOptions } from './tool-finder.js';
export { KeywordMatcher } from './keyword-match.js';
