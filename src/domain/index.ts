export type { Clock } from './clock.js';
export { systemClock } from './clock.js';
export type { JsonObject, JsonValue } from './json.js';
export { isJsonObject, isJsonValue } from './json.js';
export type { ObjectSchema, SchemaValue } from './json-schema.js';
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
