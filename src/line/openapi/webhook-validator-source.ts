import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { OpenApiSchemaConverter, type JsonSchema } from './openapi-to-json-schema.js';

// Both are CommonJS; under NodeNext their default exports arrive wrapped.
const standaloneCode = standaloneCodeModule.default;
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** The file the webhook edge validates with (`npm run line-schemas` writes it). */
export const WEBHOOK_VALIDATOR_FILE = 'src/line/openapi/webhook-event-validate.js';

/**
 * The source of `webhook-event-validate.js`: `webhook.yml` converted to JSON Schema (its
 * discriminators made binding, see {@link OpenApiSchemaConverter}) and compiled by ajv ahead of
 * time into a standalone module, with the discriminator values LINE documents. Compiling at run
 * time costs hundreds of milliseconds and pulls ajv into the webhook's Lambda bundle; the
 * generated module costs an import. Deterministic, so a test can tell when it is stale.
 */
export async function webhookValidatorSource(): Promise<string> {
  const text = await readFile(new URL('./webhook.yml', import.meta.url), 'utf8');
  const schemas = (parse(text) as { components?: { schemas?: Record<string, Record<string, unknown>> } })
    .components?.schemas;
  const converter = new OpenApiSchemaConverter(schemas, 'webhook');
  const ajv = addFormats(
    new Ajv({
      strict: true,
      strictTypes: false,
      strictRequired: false,
      allowUnionTypes: true,
      // The first error only: the event is skipped either way, and its first problem is what is logged.
      allErrors: false,
      // No message strings: only the keyword and paths are read (src/line/webhook-event-validator.ts).
      messages: false,
      code: { source: true, esm: true, lines: true },
    }),
  );
  // OpenAPI formats are open-ended: one ajv-formats does not know is an annotation, not an error.
  const document = withoutAnnotations(converter.document());
  for (const format of converter.formats) if (ajv.formats[format] === undefined) ajv.addFormat(format, true);
  ajv.addSchema(document);
  const validate = ajv.compile({ $ref: 'webhook#/definitions/Event' });
  const mapped = (name: string) => {
    const discriminator = schemas?.[name]?.discriminator as { mapping?: Record<string, unknown> } | undefined;
    return JSON.stringify(Object.keys(discriminator?.mapping ?? {}));
  };
  return [
    `// Generated from webhook.yml by \`npm run line-schemas\` (src/line/openapi/webhook-validator-source.ts).`,
    `// Do not edit: test/line/webhook-event-validator.test.ts fails when this file is stale.`,
    ...runtimeImports(standaloneCode(ajv, validate)),
    `export const eventTypes = ${mapped('Event')};`,
    `export const messageTypes = ${mapped('MessageContent')};`,
    `export const sourceTypes = ${mapped('Source')};`,
    '',
  ].join('\n');
}

/**
 * ajv's standalone code reaches its runtime helpers (`ucs2length`, ajv-formats' `uri`) with
 * `require`, even as ESM: each becomes an import, so the module loads as plain ESM anywhere.
 */
function runtimeImports(code: string): string[] {
  const modules = [...new Set([...code.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]!))];
  const imports = modules.map(
    (module, index) => `import runtime${index} from ${JSON.stringify(`${module}.js`)};`,
  );
  let body = code.replace(/^"use strict";/, '');
  modules.forEach((module, index) => {
    body = body.replaceAll(`require(${JSON.stringify(module)})`, `runtime${index}`);
  });
  return [...imports, body];
}

/** Descriptions and titles help a reader of the YAML, not the validator: they stay out of the code. */
function withoutAnnotations(schema: JsonSchema): JsonSchema {
  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'description' || keyword === 'title') continue;
    if ((keyword === 'properties' || keyword === 'definitions') && isRecord(value)) {
      // Property and definition names are data here, not keywords: only their schemas are cleaned.
      result[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, isRecord(sub) ? withoutAnnotations(sub) : sub]),
      );
    } else if (Array.isArray(value)) {
      result[keyword] = value.map((item: unknown) => (isRecord(item) ? withoutAnnotations(item) : item));
    } else {
      result[keyword] = isRecord(value) ? withoutAnnotations(value) : value;
    }
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
