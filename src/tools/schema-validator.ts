import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonObject } from '../domain/index.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export type Validation = { ok: true } | { ok: false; message: string };

/** A compiled JSON Schema. Compiled once; `validate` is cheap. */
export interface CompiledSchema {
  validate(value: unknown): Validation;
}

/**
 * Compiles tool schemas with ajv in strict mode, so a typo in a schema fails at
 * registration rather than letting bad arguments through.
 */
export class SchemaCompiler {
  private readonly ajv = addFormats(new Ajv({ strict: true, allErrors: true }));

  /** Throws ajv's own error when the schema itself is invalid. */
  compile(schema: JsonObject): CompiledSchema {
    const check: ValidateFunction = this.ajv.compile(schema);
    return {
      validate: (value) =>
        check(value)
          ? { ok: true }
          : { ok: false, message: this.ajv.errorsText(check.errors, { dataVar: 'args' }) },
    };
  }
}
