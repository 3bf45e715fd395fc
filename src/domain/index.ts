export type { Clock } from './clock.js';
export { systemClock } from './clock.js';
export type { JsonObject, JsonValue } from './json.js';
export { isJsonObject } from './json.js';
export type { Source, SourceKind } from './source.js';
export type { ForgetEvent, InboundMessage, InboxItem, Sender, UnsendEvent } from './inbound-message.js';
export { isMessage } from './inbound-message.js';
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
  boundHistory,
  collectHistoryWindow,
  defaultHistoryLimits,
  HistoryWindowCollector,
} from './history-bounds.js';
export type { HistoryLimits, SizedEntry } from './history-bounds.js';
