import { defaults } from '../defaults/index.js';
import {
  MAX_STEP_RESULT_BYTES,
  outcomeBytes,
  wellFormed,
  type FunctionCall,
  type ObjectSchema,
  type ToolOutcome,
} from '../domain/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import { DeadlineExceededError, withDeadline } from '../timing/index.js';
import type { ToolDeclaration } from '../model/index.js';
import type { BackgroundWork } from './background-work.js';
import { SchemaCompiler, type CompiledSchema } from './schema-validator.js';
import type { PreparedTool, Tool, ToolContext, ToolRun } from './tool.js';
import { ToolDefinitionError } from './tool-definition-error.js';

/** The call's surroundings; the registry adds the call id, idempotency key and logger. */
export type CallContext = Omit<ToolContext, 'callId' | 'idempotencyKey' | 'logger'>;

export interface ToolRegistryOptions {
  logger?: Logger;
  /** Applies to tools without their own `timeoutMs`. */
  defaultTimeoutMs?: number;
  /**
   * When a tool's schemas are compiled (ajv, a few milliseconds each) and its examples checked:
   * at registration (the default: a bad schema fails at start-up, as in `npm start` and the
   * tests), or on the tool's first call, so that a cold start (the Lambda worker) pays only for
   * the tools its turns call; a bad schema then fails that call, logged.
   */
  compile?: 'at-registration' | 'on-first-call';
  /** Where a result's `background` work is followed to its end; without it such a result is the call's error. */
  background?: BackgroundWork;
}

interface RegisteredTool {
  readonly tool: Tool;
  /** Undefined until the first call when compiling on first call. */
  readonly prepared: PreparedTool | undefined;
  /** Why the first call could not prepare it: every later call fails the same, compiling nothing. */
  readonly broken?: ToolDefinitionError;
}

/**
 * Holds the tools, validates every call's arguments and every response, and turns
 * every failure into `{"error": "..."}` for the model while logging the details.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly compiler = new SchemaCompiler();
  private readonly logger: Logger;
  private readonly defaultTimeoutMs: number;
  private readonly compileOnFirstCall: boolean;
  private readonly background: BackgroundWork | undefined;
  private cachedDeclarations: readonly ToolDeclaration[] | undefined;
  private cachedList: readonly Tool[] | undefined;

  constructor(options: ToolRegistryOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? defaults.tools.timeoutMs;
    this.compileOnFirstCall = options.compile === 'on-first-call';
    this.background = options.background;
  }

  /**
   * Adds a tool made with `defineTool`. Rejects a duplicate name, an invalid schema, or an
   * example its schema refuses.
   */
  register(tool: Tool): this {
    if (this.tools.has(tool.name))
      throw new ToolDefinitionError(tool.name, 'a tool with this name is already registered');
    const nameProblem = functionNameProblem(tool.name);
    if (nameProblem) throw new ToolDefinitionError(tool.name, nameProblem);
    checkSelectionHints(tool);
    if (tool.maxResultBytes !== undefined && tool.maxResultBytes > MAX_STEP_RESULT_BYTES)
      throw new ToolDefinitionError(
        tool.name,
        `maxResultBytes ${tool.maxResultBytes} is more than one step's results may hold (${MAX_STEP_RESULT_BYTES})`,
      );
    this.tools.set(tool.name, { tool, prepared: this.compileOnFirstCall ? undefined : this.prepare(tool) });
    this.cachedDeclarations = undefined;
    this.cachedList = undefined;
    return this;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name)?.tool;
  }

  /** Every tool, sorted by name. */
  list(): readonly Tool[] {
    // Asked for on every model step: the same array until a tool is registered.
    this.cachedList ??= [...this.tools.values()]
      .map(({ tool }) => tool)
      .sort((a, b) => a.name.localeCompare(b.name));
    return this.cachedList;
  }

  /** Declarations for the model, sorted by name so a provider's prefix cache stays stable. */
  declarations(): readonly ToolDeclaration[] {
    this.cachedDeclarations ??= this.list().map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      response: tool.response,
    }));
    return this.cachedDeclarations;
  }

  /** Runs one call. Never throws: every failure becomes an error outcome. */
  async execute(call: FunctionCall, context: CallContext): Promise<ToolOutcome> {
    const logger = this.logger.child({ tool: call.name, callId: call.id, sourceId: context.source.id });
    const fail = (error: string, details?: Record<string, unknown>): ToolOutcome => {
      logger.warn('tool call failed', { error, ...details });
      return { callId: call.id, name: call.name, response: { error }, isError: true };
    };

    const registered = this.tools.get(call.name);
    if (!registered) {
      return fail(
        `unknown tool "${call.name}"; available tools: ${[...this.tools.keys()].sort().join(', ')}`,
      );
    }
    const { tool } = registered;
    const timeoutMs = tool.timeoutMs ?? this.defaultTimeoutMs;
    const idempotencyKey = `${context.turnId}:${call.id}`;
    const started = context.clock.now();
    // On the real clock: the injected one may stand still (tests, restored turns).
    const deadline = Date.now() + timeoutMs;
    let run: ToolRun;
    try {
      if (registered.broken) throw registered.broken;
      const prepared = registered.prepared ?? this.prepareOnFirstCall(tool);
      run = await withDeadline(
        (signal) =>
          prepared.run(call.args, {
            ...context,
            signal,
            callId: call.id,
            idempotencyKey,
            logger,
          }),
        { deadline, signal: context.signal },
      );
    } catch (error) {
      if (DeadlineExceededError.isInstance(error) && error.deadline === deadline)
        return fail(`tool "${call.name}" timed out after ${timeoutMs} ms`);
      return fail(`tool "${call.name}" failed`, { cause: error });
    }

    if (!run.ok) {
      return run.refused === 'arguments'
        ? fail(`invalid arguments: ${run.message}`)
        : fail(`tool "${call.name}" returned an invalid response`, { validation: run.message });
    }
    const { result } = run;
    // Half an emoji cut by the tool would go back to the model with every later request of the
    // chat (docs/security.md, "Well-formed text").
    const forLLM = wellFormed(result.forLLM);
    const forUser = 'forUser' in result ? wellFormed(result.forUser) : undefined;
    const limit = tool.maxResultBytes ?? defaults.tools.maxResultBytes;
    const bytes = outcomeBytes({ response: forLLM, forUser });
    // Work left by a call that fails here is nobody's: its outcome would answer a call the model
    // was told failed.
    const background = result.isError ? undefined : result.background;
    const abandon = () => void Promise.resolve(background).catch(() => undefined);
    if (background && !this.background) {
      abandon();
      return fail(`tool "${call.name}" left work in the background, which this runtime cannot take`);
    }
    if (bytes > limit) {
      abandon();
      return fail(
        `tool "${call.name}" returned ${kibibytes(bytes)} KB, more than the ${kibibytes(limit)} KB a tool result may hold`,
        { bytes, limit },
      );
    }
    logger.debug('tool call finished', {
      durationMs: context.clock.now() - started,
      isError: !!result.isError,
    });
    if (result.isError) return { callId: call.id, name: call.name, response: forLLM, isError: true };
    if (background) {
      await this.background?.start(
        {
          toolName: call.name,
          source: context.source,
          ...(context.sender && { sender: context.sender }),
          idempotencyKey,
        },
        background,
      );
    }
    return {
      callId: call.id,
      name: call.name,
      response: forLLM,
      isError: false,
      ...(forUser !== undefined && { forUser }),
      ...(result.silent !== undefined && { silent: result.silent }),
      ...(background ? { async: true } : result.async !== undefined && { async: result.async }),
    };
  }

  /** Compiles a tool's schemas, checks its examples and prepares it; throws `ToolDefinitionError`. */
  private prepare(tool: Tool): PreparedTool {
    // Compiled here first so a bad schema is named; `prepare` then finds both in ajv's cache.
    const parameters = this.compileSchema(tool, 'parameters', tool.parameters);
    this.compileSchema(tool, 'response', tool.response);
    for (const example of tool.examples ?? []) {
      const result = parameters.validate(example.args);
      if (!result.ok)
        throw new ToolDefinitionError(tool.name, `example "${example.description}": ${result.message}`);
    }
    return tool.prepare(this.compiler);
  }

  private prepareOnFirstCall(tool: Tool): PreparedTool {
    try {
      const prepared = this.prepare(tool);
      this.tools.set(tool.name, { tool, prepared });
      return prepared;
    } catch (error) {
      if (ToolDefinitionError.isInstance(error))
        this.tools.set(tool.name, { tool, prepared: undefined, broken: error });
      throw error;
    }
  }

  private compileSchema(tool: Tool, which: string, schema: ObjectSchema): CompiledSchema<unknown> {
    try {
      return this.compiler.compileUntyped(schema);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolDefinitionError(tool.name, `invalid ${which} schema: ${reason}`);
    }
  }
}

/** Hints that would silently never match are refused at registration, like bad schemas. */
function checkSelectionHints(tool: Tool): void {
  if (tool.keywords?.some((keyword) => keyword.trim() === ''))
    throw new ToolDefinitionError(tool.name, 'a keyword is empty');
  const stateful = tool.intents?.find((intent) => intent.global || intent.sticky);
  if (stateful)
    throw new ToolDefinitionError(
      tool.name,
      `intent ${String(stateful)} has the g or y flag, which keeps state`,
    );
}

const kibibytes = (bytes: number) => Math.ceil(bytes / 1024);

/**
 * Gemini's rule for a function name: it answers 400 to every request that declares a tool
 * named otherwise, so the bot would never answer. Checked when the tool is registered.
 */
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*$/;
const MAX_FUNCTION_NAME_LENGTH = 64;

function functionNameProblem(name: string): string | undefined {
  if (name.length > MAX_FUNCTION_NAME_LENGTH) {
    return `a tool name has at most ${MAX_FUNCTION_NAME_LENGTH} characters (Gemini's rule); this one has ${name.length}`;
  }
  if (!FUNCTION_NAME.test(name)) {
    return "a tool name is a letter or an underscore, then letters, digits, '_', '.', ':' or '-' (Gemini's rule)";
  }
  return undefined;
}
