export type { Clock } from './clock.js';
export { systemClock } from './clock.js';
export type { JsonObject, JsonValue } from './json.js';
export { isJsonObject, isJsonValue } from './json.js';
export { exceedsBounds, pointerSegment } from './json-bounds.js';
export type { BoundsViolation, JsonBounds } from './json-bounds.js';
export type { ObjectSchema, SchemaValue } from './json-schema.js';
export type { Source, SourceKind } from './source.js';
export type {
  ChatEvent,
  ForgetEvent,
  InboundMessage,
  InboxItem,
  InboxOverflow,
  Sender,
  UnsendEvent,
} from './inbound-message.js';
export {
  delayInWords,
  isMessage,
  REMINDER_DUE_MARK,
  REMINDER_LATE_AFTER_MS,
  reminderLateBy,
  reminderTextOf,
} from './inbound-message.js';
export { REPLY_TOOL_NAME, SKIP_TOOL_NAME } from './final-tools.js';
export { isValidTimeZone, utcOffsetOf, zonedParts } from './time-zone.js';
export { setMostRecent } from './recency.js';
export type { ToolOutcome } from './tool-outcome.js';
export type {
  Attachment,
  FunctionCall,
  FunctionResult,
  HistoryEntry,
  ModelEntry,
  ToolEntry,
  UserEntry,
} from './history.js';
export {
  appendHistory,
  boundHistory,
  collectHistoryWindow,
  defaultHistoryLimits,
  HistoryWindowCollector,
  MAX_STEP_RESULT_BYTES,
  outcomeBytes,
} from './history-bounds.js';
export type { HistoryLimits, SizedEntry } from './history-bounds.js';
export { cutText, mayHoldLoneSurrogates, pairSafeEnd, wellFormed } from './well-formed-text.js';
