export { replyTool, REPLY_TOOL_NAME } from './reply-tool.js';
export { skipTool, SKIP_TOOL_NAME } from './skip-tool.js';
export { createWeatherTool, WEATHER_TOOL_NAME } from './weather-tool.js';
export type { WeatherToolOptions } from './weather-tool.js';
export { FORECAST_DAYS, FORECAST_DETAILS } from './wttr-forecast.js';
export type { ForecastDay, ForecastDetail } from './wttr-forecast.js';
export { createCurrentTimeTool, CURRENT_TIME_TOOL_NAME, isValidTimeZone } from './current-time-tool.js';
export type { CurrentTimeToolOptions } from './current-time-tool.js';
