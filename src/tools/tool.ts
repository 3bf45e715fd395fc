import type {
  Clock,
  JsonObject,
  ObjectSchema,
  SchemaValue,
  Sender,
  Source,
  SourceKind,
} from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { SchemaCompiler } from './schema-validator.js';

/** What a tool's run produced when it worked: what the model sees, what the user sees, and flags. */
export interface ToolSuccess<Response = JsonObject> {
  /** Matches the tool's response schema: typed from it, and checked against it at run time too. */
  readonly forLLM: Response;
  /** Text for the user, delivered by the machine's `reply` service unless `silent`. */
  readonly forUser?: string;
  readonly silent?: boolean;
  readonly isError?: false;
  /** The work goes on in the background; its completion re-enters the source's inbox. */
  readonly async?: boolean;
  /**
   * Work that goes on after the call has answered (the call is then `async`): the plain JSON
   * object it resolves to — or an error, when it rejects, times out or resolves to anything else —
   * enters the source's inbox as an event and starts a turn, whose answer goes out by push
   * (docs/design-notes.md, "Background work"). The call's `signal` is the call's: this work
   * should not stop with it.
   */
  readonly background?: PromiseLike<JsonObject>;
}

/** What the model reads when a call could not do its work: a reason it can act on. */
export type ToolError = { readonly error: string };

/** A failure the model can correct ("unknown time zone"); not held to the response schema. */
export interface ToolFailure {
  readonly forLLM: ToolError;
  readonly isError: true;
}

/** What a tool run produced (docs/design-notes.md, "Tools"): a success matching the response schema, or a failure. */
export type ToolResult<Response = JsonObject> = ToolSuccess<Response> | ToolFailure;

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
  /**
   * The call's intent was durable before this process took the conversation over: it may have
   * run before, its effect done and its result lost with the process. A tool whose effect leaves
   * nothing to find again (a delete) answers from this.
   */
  readonly resumed?: boolean;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** One example call, shown in the prompt and checked against the parameter schema at registration. */
export interface ToolExample {
  readonly description: string;
  readonly args: JsonObject;
}

/** Everything about a tool but its code: what the prompt, the model and tool selection read. */
export interface ToolSpec<
  ParametersSchema extends ObjectSchema = ObjectSchema,
  ResponseSchema extends ObjectSchema = ObjectSchema,
> {
  readonly name: string;
  readonly description: string;
  readonly category: string;
  /** Optional tools may be left out of a step; required ones are always offered. */
  readonly optional: boolean;
  /** When the model should use it. */
  readonly usageHint?: string;
  readonly examples?: readonly ToolExample[];
  /** The arguments' JSON Schema: the type of `execute`'s `args`, and ajv's check of every call. */
  readonly parameters: ParametersSchema;
  /** The result's JSON Schema: the type `execute` must return, and ajv's check of every result. */
  readonly response: ResponseSchema;
  /** Overrides the registry's default timeout (ms). */
  readonly timeoutMs?: number;
  /**
   * Overrides the registry's limit on a result (UTF-8 bytes of `forLLM` as JSON and `forUser`;
   * default 32 KiB). A result is kept in the turn's checkpoint and in history: a larger one is
   * refused as the call's error, so the model can ask for less. At most `MAX_STEP_RESULT_BYTES`
   * (256 KiB), what one step's results may hold together.
   */
  readonly maxResultBytes?: number;
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
}

/** A tool's code, typed by its schemas: `args` as `parameters` describes them, a result as `response` does. */
export type ToolExecute<ParametersSchema extends ObjectSchema, ResponseSchema extends ObjectSchema> = (
  args: SchemaValue<ParametersSchema>,
  context: ToolContext,
) => Promise<ToolResult<SchemaValue<ResponseSchema>>>;

/** What one run gave: the result, or which check refused the call or its result, and why. */
export type ToolRun =
  | { readonly ok: true; readonly result: ToolResult }
  | { readonly ok: false; readonly refused: 'arguments' | 'response'; readonly message: string };

/** A tool joined to validators compiled from its own schemas. */
export interface PreparedTool {
  /** Checks `args` against the parameters, runs the tool, and checks a success against the response schema. */
  run(args: unknown, context: ToolContext): Promise<ToolRun>;
}

/**
 * A tool the model can call, its types erased: what the registry, the prompt and tool
 * selection hold, whatever each tool's arguments are. Made by `defineTool`, which is
 * the only place that knows a tool's argument type; `prepare` carries that knowledge
 * across the erasure, because the arguments reach the code only through a validator
 * compiled from the same schema the code's type was read from.
 */
export interface Tool extends ToolSpec {
  readonly prepare: (compiler: SchemaCompiler) => PreparedTool;
}

/**
 * A tool as `defineTool` made it, before erasure: `execute` keeps the types read from the
 * schemas, so a test may call it directly. Generic in those types rather than in the schemas,
 * so comparing two tools never makes TypeScript expand a schema it does not know.
 * Build tools with `defineTool`: a copy with other schemas or another `execute`
 * (`{ ...tool, execute }`) would still run the original.
 */
export interface TypedTool<Args, Response> extends Tool {
  readonly execute: (args: Args, context: ToolContext) => Promise<ToolResult<Response>>;
}
