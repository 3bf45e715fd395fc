import { isJsonObject, type JsonObject, type ObjectSchema, type SchemaValue } from '../domain/index.js';
import { isPlainJsonObject } from './plain-json.js';
import type { CompiledSchema } from './schema-validator.js';
import type { PreparedTool, ToolContext, ToolExecute, ToolResult, ToolSpec, TypedTool } from './tool.js';

/** The second step of {@link defineTool}: the code, typed by the schemas the first step fixed. */
export interface ToolBuilder<ParametersSchema extends ObjectSchema, ResponseSchema extends ObjectSchema> {
  implement(
    execute: ToolExecute<ParametersSchema, ResponseSchema>,
  ): TypedTool<SchemaValue<ParametersSchema>, SchemaValue<ResponseSchema>>;
}

/**
 * Defines a tool whose code is typed by its JSON Schemas: `args` is what `parameters`
 * accepts (a required string is a `string`, an optional one `string | undefined`) and the
 * result must be what `response` describes, so `execute` needs no casts. The schemas stay
 * plain JSON Schema, written inline or `as const`; ajv (strict) still checks every call and
 * every result at run time, and a result must be plain JSON, since history keeps it.
 *
 * Two steps, because TypeScript knows the schemas' types only once the first call is
 * inferred: an `execute` in the same object literal would be checked before they are known.
 * @example
 * export const diceTool = defineTool({
 *   name: 'roll_dice', description: 'Rolls dice.', category: 'fun', optional: true,
 *   parameters: { type: 'object', properties: { count: { type: 'integer', minimum: 1 } }, required: ['count'], additionalProperties: false },
 *   response: { type: 'object', properties: { rolls: { type: 'array', items: { type: 'integer' } } }, required: ['rolls'], additionalProperties: false },
 * }).implement(async (args) => ({ forLLM: { rolls: roll(args.count) } }));
 */
export function defineTool<
  const ParametersSchema extends ObjectSchema,
  const ResponseSchema extends ObjectSchema,
>(spec: ToolSpec<ParametersSchema, ResponseSchema>): ToolBuilder<ParametersSchema, ResponseSchema> {
  return {
    implement: (execute) => ({
      ...spec,
      execute,
      prepare: (compiler) => {
        // Compiled apart from the call below: inferred against it, the schema type would be expanded.
        const parameters = compiler.compile(spec.parameters);
        return prepare(parameters, compiler.compileUntyped(spec.response), execute);
      },
    }),
  };
}

/**
 * Generic in the argument and result types only, never in the schemas: TypeScript then
 * never has to expand a schema type it does not know yet.
 */
function prepare<Args, Response>(
  parameters: CompiledSchema<Args>,
  response: CompiledSchema<unknown>,
  execute: (args: Args, context: ToolContext) => Promise<ToolResult<Response>>,
): PreparedTool {
  return {
    async run(args, context) {
      const checkedArgs = parameters.validate(args);
      if (!checkedArgs.ok) return { ok: false, refused: 'arguments', message: checkedArgs.message };
      const result = await execute(checkedArgs.value, context);
      // The types promise as much; the checks catch what types cannot see (a tool in
      // JavaScript, a cast): a value history could not keep, a text the user could not get.
      const forLLM = plainResult(result);
      if (typeof forLLM === 'string') return { ok: false, refused: 'response', message: forLLM };
      if (result.isError) return { ok: true, result };
      // And what the schema adds: a number out of range, a missing field.
      const checkedResponse = response.validate(result.forLLM);
      if (!checkedResponse.ok) return { ok: false, refused: 'response', message: checkedResponse.message };
      return {
        ok: true,
        result: {
          forLLM,
          ...(result.forUser !== undefined && { forUser: result.forUser }),
          ...(result.silent !== undefined && { silent: result.silent }),
          ...(result.async !== undefined && { async: result.async }),
          ...(result.background !== undefined && { background: result.background }),
        },
      };
    },
  };
}

/**
 * The result's `forLLM` when the result is what `ToolResult` says (error results included),
 * else what it is not.
 */
function plainResult(result: unknown): JsonObject | string {
  if (!isJsonObject(result)) return 'the result is no object';
  const { forLLM, forUser } = result;
  if (!isPlainJsonObject(forLLM)) return 'the result is not plain JSON';
  if (forUser !== undefined && typeof forUser !== 'string') return 'its text for the user is no string';
  const flag = (['isError', 'silent', 'async'] as const).find(
    (name) => result[name] !== undefined && typeof result[name] !== 'boolean',
  );
  if (flag) return `${flag} is no boolean`;
  const background: unknown = result.background;
  return background === undefined || isThenable(background) ? forLLM : 'its background work is no promise';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && 'then' in value && typeof value.then === 'function';
}
