export { replyTool } from './reply-tool.js';
export { skipTool } from './skip-tool.js';
export { createWeatherTool, WEATHER_TOOL_NAME } from './weather-tool.js';
export type { WeatherToolOptions } from './weather-tool.js';
export { FORECAST_DAYS, FORECAST_DETAILS } from './wttr-forecast.js';
export type { ForecastDay, ForecastDetail } from './wttr-forecast.js';
export { createCurrentTimeTool, CURRENT_TIME_TOOL_NAME } from './current-time-tool.js';
export type { CurrentTimeToolOptions } from './current-time-tool.js';
