import type { JsonObject } from './json.js';

/**
 * What one tool call produced, as the turn records it: the tool registry makes it, the
 * conversation chart keeps it in its (persisted) context. Plain JSON, so it lives with the
 * history rather than with the registry.
 */
export interface ToolOutcome {
  readonly callId: string;
  readonly name: string;
  /** The function response the model will see: the tool's `forLLM` or `{ error }`. */
  readonly response: JsonObject;
  readonly isError: boolean;
  readonly forUser?: string;
  readonly silent?: boolean;
  readonly async?: boolean;
  /** Delivered: LINE's ids of the messages that carried it (see `FunctionResult`). */
  readonly lineMessageIds?: readonly string[];
}
