import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { ObjectSchema, SchemaValue } from '../domain/index.js';

// ajv-formats is CommonJS: under NodeNext its default export is the `default` property
// of what is imported (the plugin sets it on itself).
const addFormats = ajvFormats.default;

/** The checked value, typed by its schema, or why it was refused. */
export type Validation<Value> =
  { readonly ok: true; readonly value: Value } | { readonly ok: false; readonly message: string };

/** A compiled JSON Schema. Compiled once; `validate` is cheap. */
export interface CompiledSchema<Value> {
  validate(value: unknown): Validation<Value>;
}

/**
 * Compiles tool schemas with ajv in strict mode, so a typo in a schema fails at
 * registration rather than letting bad arguments through. A value that passes is typed by
 * the schema it passed (`SchemaValue<typeof schema>`): this is where a tool's types meet
 * the data, and the only place.
 */
export class SchemaCompiler {
  private readonly ajv = addFormats(new Ajv({ strict: true, allErrors: true }));

  /** Throws ajv's own error when the schema itself is invalid. ajv caches by schema object. */
  compile<const Schema extends ObjectSchema>(schema: Schema): CompiledSchema<SchemaValue<Schema>> {
    return this.compileAs<SchemaValue<Schema>>(schema);
  }

  /** The same check, for code that holds a schema of no particular type (a registry's tools). */
  compileUntyped(schema: ObjectSchema): CompiledSchema<unknown> {
    return this.compileAs<unknown>(schema);
  }

  private compileAs<Value>(schema: ObjectSchema): CompiledSchema<Value> {
    const check = this.ajv.compile<Value>(schema);
    return {
      validate: (value) =>
        check(value)
          ? { ok: true, value }
          : { ok: false, message: this.ajv.errorsText(check.errors, { dataVar: 'args' }) },
    };
  }
}
