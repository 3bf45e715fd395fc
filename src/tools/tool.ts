import type { Clock, JsonObject, Sender, Source, SourceKind } from '../domain/index.js';
import type { Logger } from '../logging/index.js';

/**
 * What a tool run produced (seed 003): what the model sees, what the user sees, and flags.
 * `forLLM` is validated against the tool's response schema unless `isError` is set.
 */
export interface ToolResult {
  readonly forLLM: JsonObject;
  /** Text for the user, delivered by the machine's `reply` service unless `silent`. */
  readonly forUser?: string;
  readonly silent?: boolean;
  readonly isError?: boolean;
  /** The work goes on in the background; its completion re-enters the source's inbox. */
  readonly async?: boolean;
}

/**
 * Everything a tool may know about the call. A tool reaches its source only through
 * this object: never through its arguments, never with the reply token.
 */
export interface ToolContext {
  readonly source: Source;
  readonly sender?: Sender;
  readonly turnId: string;
  readonly callId: string;
  /** Stable across retries of this call: pass it to side effects that accept one. */
  readonly idempotencyKey: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** One example call, shown in the prompt and checked against the parameter schema. */
export interface ToolExample {
  readonly description: string;
  readonly args: JsonObject;
}

/**
 * A tool the model can call (seeds 002–004).
 * @example
 * const echo: Tool = {
 *   name: 'echo', description: 'Repeats text.', category: 'utility', optional: true,
 *   parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
 *   response: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
 *   execute: async (args) => ({ forLLM: { text: String(args.text) } }),
 * };
 */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly category: string;
  /** Optional tools may be left out of a step; required ones are always offered. */
  readonly optional: boolean;
  /** When the model should use it. */
  readonly usageHint?: string;
  readonly examples?: readonly ToolExample[];
  readonly parameters: JsonObject;
  readonly response: JsonObject;
  /** Overrides the registry's default timeout (ms). */
  readonly timeoutMs?: number;
  /**
   * Whether a call acts outside the conversation (schedules, writes, sends). Such a call runs
   * only once its intent is durable (one checkpoint before it); a pure tool (`false`: reply,
   * skip, a lookup) runs at once. Default `true`: when in doubt, the safe answer.
   */
  readonly sideEffects?: boolean;
  /**
   * Words that make an optional tool relevant when a recent user message contains one, in
   * every language users write ("weather", "天気"). Case-insensitive; a word in Latin script
   * matches at the start of a word, so "remind" finds "reminder" but "rain" not "train".
   */
  readonly keywords?: readonly string[];
  /**
   * Message shapes keywords cannot express (`/\bin \d+ minutes\b/`), tested against the
   * message NFKC-normalised and lower-cased. No `g` or `y` flag: those keep state between tests.
   */
  readonly intents?: readonly RegExp[];
  /** The kinds of chat the tool suits; in others it is offered only on request (the tool finder). */
  readonly sourceKinds?: readonly SourceKind[];
  /** Kinds of chat in which the tool is offered at every step, whatever was said. */
  readonly offerAlwaysIn?: readonly SourceKind[];
  /** Complex or commonly misused: shown with full detail (parameters, examples) whenever offered. */
  readonly complex?: boolean;
  execute(args: JsonObject, context: ToolContext): Promise<ToolResult>;
}
