import { readFile } from 'node:fs/promises';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { OpenApiSchemaConverter, type JsonSchema } from './openapi-to-json-schema.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Outcome of a validation; each error reads like `/messages/0 must have required property 'text'`. */
export type Validation = { ok: true } | { ok: false; errors: string[] };

/** One of the bundled LINE OpenAPI files. */
export type LineSchemaFile = 'messaging-api' | 'webhook';

type RequestBody =
  | { kind: 'none' }
  /** A body that is not JSON (rich menu images): nothing here can check it. */
  | { kind: 'opaque' }
  | { kind: 'json'; schema: JsonSchema; required: boolean };

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  body: RequestBody;
}

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

/**
 * LINE's own OpenAPI schemas (bundled next to this module), enforced with ajv after
 * {@link OpenApiSchemaConverter} has made their discriminators binding. Each validator is compiled
 * on first use and cached, so validating every emulator request stays cheap.
 *
 * @example
 * const schemas = await LineSchemas.load();
 * const result = schemas.validateRequest('POST', '/v2/bot/message/reply', request.body);
 * if (!result.ok) return response.status(400).json({ message: 'The request body has 1 error(s)', details: result.errors });
 */
export class LineSchemas {
  private readonly validators = new Map<string, ValidateFunction>();

  private constructor(
    private readonly ajv: Ajv,
    private readonly converters: Record<LineSchemaFile, OpenApiSchemaConverter>,
    private readonly operations: readonly Operation[],
  ) {}

  /** Reads and converts the bundled `messaging-api.yml` and `webhook.yml`. */
  static async load(): Promise<LineSchemas> {
    const [messagingApi, webhook] = await Promise.all([
      readDocument('messaging-api'),
      readDocument('webhook'),
    ]);
    const converters: Record<LineSchemaFile, OpenApiSchemaConverter> = {
      'messaging-api': new OpenApiSchemaConverter(messagingApi.components?.schemas, 'messaging-api'),
      webhook: new OpenApiSchemaConverter(webhook.components?.schemas, 'webhook'),
    };
    const ajv = addFormats(
      new Ajv({
        strict: true,
        strictTypes: false,
        strictRequired: false,
        allowUnionTypes: true,
        allErrors: true,
      }),
    );
    for (const converter of Object.values(converters)) ajv.addSchema(converter.document());
    const operations = readOperations(messagingApi.paths, converters['messaging-api']);
    // OpenAPI formats are open-ended: one ajv-formats does not know is an annotation, not an error.
    for (const converter of Object.values(converters)) {
      for (const format of converter.formats)
        if (ajv.formats[format] === undefined) ajv.addFormat(format, true);
    }
    return new LineSchemas(ajv, converters, operations);
  }

  /**
   * Validates the body of a Messaging API request, e.g. `('POST', '/v2/bot/message/reply', body)`.
   * `path` may be concrete (`/v2/bot/profile/U123`) and may carry a query string. An operation that
   * takes no body accepts only `undefined`; a non-JSON body (an image upload) is not checked.
   */
  validateRequest(method: string, path: string, body: unknown): Validation {
    const operation = this.findOperation(method, path);
    if (operation === undefined) {
      return { ok: false, errors: [`no Messaging API operation ${method.toUpperCase()} ${path}`] };
    }
    const { body: expected } = operation;
    const name = `${operation.method.toUpperCase()} ${operation.template}`;
    if (expected.kind === 'opaque') return { ok: true };
    if (expected.kind === 'none') {
      return body === undefined ? { ok: true } : { ok: false, errors: [`${name} takes no request body`] };
    }
    if (body === undefined) {
      return expected.required ? { ok: false, errors: [`${name} requires a request body`] } : { ok: true };
    }
    return this.run(
      this.validator(`request ${name}`, () => expected.schema),
      body,
    );
  }

  /** Validates a webhook request body (`CallbackRequest` in `webhook.yml`). */
  validateWebhook(body: unknown): Validation {
    return this.validateSchema('webhook', 'CallbackRequest', body);
  }

  /** Validates `value` against one named component schema; throws if there is no such schema. */
  validateSchema(file: LineSchemaFile, schemaName: string, value: unknown): Validation {
    const converter = this.converters[file];
    const validate = this.validator(`${file} ${schemaName}`, () => ({
      $ref: converter.referenceTo(schemaName),
    }));
    return this.run(validate, value);
  }

  private validator(key: string, schema: () => JsonSchema): ValidateFunction {
    let validate = this.validators.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(schema());
      this.validators.set(key, validate);
    }
    return validate;
  }

  private run(validate: ValidateFunction, value: unknown): Validation {
    return validate(value) ? { ok: true } : { ok: false, errors: describeErrors(validate.errors ?? []) };
  }

  private findOperation(method: string, path: string): Operation | undefined {
    const wantedMethod = method.toLowerCase();
    const wantedPath = path.split('?')[0] ?? path;
    return this.operations.find(
      (operation) => operation.method === wantedMethod && operation.pattern.test(wantedPath),
    );
  }
}

interface OpenApiDocument {
  paths?: unknown;
  components?: { schemas?: unknown };
}

async function readDocument(file: LineSchemaFile): Promise<OpenApiDocument> {
  const text = await readFile(new URL(`./${file}.yml`, import.meta.url), 'utf8');
  return parse(text) as OpenApiDocument;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readOperations(paths: unknown, converter: OpenApiSchemaConverter): Operation[] {
  if (!isRecord(paths)) throw new Error('messaging-api: paths must be an object');
  const operations: Operation[] = [];
  for (const [template, pathItem] of Object.entries(paths)) {
    if (!isRecord(pathItem)) continue;
    for (const [method, operation] of Object.entries(pathItem)) {
      if (!httpMethods.has(method) || !isRecord(operation)) continue;
      operations.push({
        method,
        template,
        pattern: templatePattern(template),
        body: readRequestBody(operation.requestBody, converter, `${method} ${template}`),
      });
    }
  }
  // A literal segment beats a parameter: `/v2/bot/richmenu/list` is not rich menu "list".
  const parameterCount = (template: string) => template.split('{').length;
  return operations.sort((left, right) => parameterCount(left.template) - parameterCount(right.template));
}

function templatePattern(template: string): RegExp {
  const segments = template.split(/\{[^}]+\}/).map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${segments.join('[^/]+')}$`);
}

function readRequestBody(
  requestBody: unknown,
  converter: OpenApiSchemaConverter,
  location: string,
): RequestBody {
  if (!isRecord(requestBody)) return { kind: 'none' };
  if ('$ref' in requestBody)
    throw new Error(`messaging-api ${location}: request body references are not supported`);
  const content = isRecord(requestBody.content) ? requestBody.content : {};
  const json = content['application/json'];
  if (!isRecord(json)) return { kind: 'opaque' };
  return {
    kind: 'json',
    schema: converter.convert(json.schema, location),
    required: requestBody.required === true,
  };
}

function describeErrors(errors: readonly ErrorObject[]): string[] {
  const lines = errors
    // "must match "then" schema" only repeats the errors of the selected schema.
    .filter((error) => error.keyword !== 'if')
    .map((error) => {
      const where = error.instancePath === '' ? '/' : error.instancePath;
      const allowed = error.keyword === 'enum' ? allowedValues(error.params) : '';
      return `${where} ${error.message ?? 'is invalid'}${allowed}`;
    });
  // Parents are checked both directly and through their children's allOf, so errors can repeat.
  return [...new Set(lines)];
}

function allowedValues(params: unknown): string {
  const values = isRecord(params) && Array.isArray(params.allowedValues) ? params.allowedValues : [];
  return values.length === 0 ? '' : `: ${values.map((value) => JSON.stringify(value)).join(', ')}`;
}
