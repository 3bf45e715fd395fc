export type {
  PreparedTool,
  Tool,
  ToolContext,
  ToolError,
  ToolExample,
  ToolExecute,
  ToolFailure,
  ToolResult,
  ToolRun,
  ToolSpec,
  ToolSuccess,
  TypedTool,
} from './tool.js';
export { defineTool } from './define-tool.js';
export type { ToolBuilder } from './define-tool.js';
export { ToolRegistry } from './tool-registry.js';
export { BackgroundWork, finishedMessage, INTERRUPTED_OUTCOME, isBackgroundCall } from './background-work.js';
export type { BackgroundCall, BackgroundLedger, BackgroundWorkOptions } from './background-work.js';
export type { CallContext, ToolRegistryOptions } from './tool-registry.js';
export { ToolDefinitionError } from './tool-definition-error.js';
export { compareStrings, groupTools, renderToolDetail, renderToolSummary, titleOf } from './tool-text.js';
export type { ToolGroup } from './tool-text.js';
export { replyTool, skipTool } from './builtin/index.js';
export {
  createCurrentTimeTool,
  createWeatherTool,
  CURRENT_TIME_TOOL_NAME,
  FORECAST_DAYS,
  FORECAST_DETAILS,
  WEATHER_TOOL_NAME,
} from './builtin/index.js';
export type {
  CurrentTimeToolOptions,
  ForecastDay,
  ForecastDetail,
  WeatherToolOptions,
} from './builtin/index.js';
