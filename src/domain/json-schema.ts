import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { JsonObject } from './json.js';

/**
 * A JSON Schema for an object, as a tool declares its arguments and its result. Written as a
 * plain literal; its TypeScript type comes from the literal itself (see {@link SchemaValue}).
 */
export type ObjectSchema = Exclude<JSONSchema, boolean> & { readonly type: 'object' };

/**
 * The values a schema accepts, as a TypeScript type (json-schema-to-ts's `FromSchema`).
 * A property with a `default` stays optional: the validator does not fill defaults in, so the
 * code that reads the value applies the default itself. A schema known only as some
 * `ObjectSchema` (not a literal) gives `JsonObject`: there is nothing more to read.
 * @example
 * type Args = SchemaValue<typeof parameters>; // { location: string; date?: 'today' | 'tomorrow' }
 */
export type SchemaValue<Schema extends JSONSchema> = ObjectSchema extends Schema
  ? JsonObject
  : FromSchema<Schema, { keepDefaultedPropertiesOptional: true }>;
