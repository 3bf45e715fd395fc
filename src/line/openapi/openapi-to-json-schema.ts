/** A JSON Schema object as ajv takes it. */
export type JsonSchema = { [keyword: string]: unknown };

type OpenApiSchema = { [keyword: string]: unknown };

interface Discriminator {
  propertyName: string;
  /** Discriminator value → name of the component schema it selects. */
  targetByValue: Map<string, string>;
}

const componentPrefix = '#/components/schemas/';

/** Suffix of the copy of a discriminated parent without its discriminator; children extend this copy. */
const baseSuffix = '.base';

/** JSON Schema keywords OpenAPI 3.0 shares with draft-07 that need no rewriting. */
const passThroughKeywords = new Set([
  'type',
  'enum',
  'required',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'title',
  'description',
  'default',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/** Documentation-only OpenAPI keywords that ajv's strict mode would reject as unknown. */
const strippedKeywords = new Set(['example', 'externalDocs', 'xml']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function componentName(reference: unknown): string | undefined {
  return typeof reference === 'string' && reference.startsWith(componentPrefix)
    ? reference.slice(componentPrefix.length)
    : undefined;
}

/**
 * Turns the `components.schemas` of one OpenAPI 3.0 document into a JSON Schema document that
 * ajv enforces as an OpenAPI reader would, rather than as plain JSON Schema (which ignores
 * `discriminator` and so accepts any object with a `type`).
 *
 * - A parent with `discriminator.mapping` becomes "its own constraints + the property is one of
 *   the mapped values + each value selects its mapped schema" (if/then, so errors point into the
 *   selected schema). Its own constraints live in a `<Name>.base` copy without the discriminator.
 * - A child that extends the parent (`allOf: [{$ref: Parent}, …]`) refers to that base copy, which
 *   breaks the parent ↔ child cycle, and is pinned to its own discriminator value(s).
 * - `nullable` widens `type`/`enum`; documentation keywords and `x-*` extensions are dropped; any
 *   other keyword is refused, so a constraint is never silently lost.
 *
 * The discriminator property is required even where the parent does not list it (`Action`,
 * `Recipient`, `DemographicFilter`): without it no mapped schema can be selected.
 *
 * @example
 * const converter = new OpenApiSchemaConverter(document.components.schemas, 'messaging-api');
 * ajv.addSchema(converter.document());
 * ajv.compile({ $ref: converter.referenceTo('ReplyMessageRequest') });
 */
export class OpenApiSchemaConverter {
  /** Every `format` met while converting, so the caller can register the ones ajv does not know. */
  readonly formats = new Set<string>();
  private readonly schemas: ReadonlyMap<string, OpenApiSchema>;
  private readonly discriminators = new Map<string, Discriminator>();

  constructor(
    schemas: unknown,
    private readonly documentId: string,
  ) {
    if (!isRecord(schemas)) throw new Error(`${documentId}: components.schemas must be an object`);
    this.schemas = new Map(
      Object.entries(schemas).map(([name, schema]) => {
        if (!isRecord(schema)) throw new Error(`${documentId}: schema ${name} must be an object`);
        if (name.endsWith(baseSuffix)) throw new Error(`${documentId}: schema name ${name} is reserved`);
        return [name, schema];
      }),
    );
    for (const [name, schema] of this.schemas) {
      if (schema.discriminator !== undefined)
        this.discriminators.set(name, this.readDiscriminator(name, schema));
    }
    this.addImplicitMappings();
  }

  /** `$ref` to a component schema, as used inside the converted document. */
  referenceTo(schemaName: string): string {
    if (!this.schemas.has(schemaName)) throw new Error(`${this.documentId}: no schema named ${schemaName}`);
    return `${this.documentId}#/definitions/${schemaName}`;
  }

  /** The converted document: register it with `ajv.addSchema`, then compile references into it. */
  document(): JsonSchema {
    const definitions: Record<string, JsonSchema> = {};
    for (const [name, schema] of this.schemas) {
      const discriminator = this.discriminators.get(name);
      if (discriminator === undefined) {
        definitions[name] = this.convertComponent(name, schema);
        continue;
      }
      const { discriminator: _omitted, ...base } = schema;
      definitions[name + baseSuffix] = this.convertComponent(name, base);
      definitions[name] = this.dispatch(name, discriminator);
    }
    return { $id: this.documentId, definitions };
  }

  /** Converts a schema outside `components.schemas`, such as an inline request body. */
  convert(schema: unknown, location: string): JsonSchema {
    if (!isRecord(schema)) throw new Error(`${location}: a schema must be an object`);
    // OpenAPI 3.0 ignores the siblings of a $ref.
    if ('$ref' in schema) return { $ref: this.reference(schema.$ref, location) };
    const result: JsonSchema = {};
    for (const [keyword, value] of Object.entries(schema)) {
      if (strippedKeywords.has(keyword) || keyword.startsWith('x-') || keyword === 'nullable') continue;
      if (keyword === 'properties') {
        if (!isRecord(value)) throw new Error(`${location}: properties must be an object`);
        result.properties = Object.fromEntries(
          Object.entries(value).map(([property, sub]) => [
            property,
            this.convert(sub, `${location}.${property}`),
          ]),
        );
      } else if (keyword === 'items' || keyword === 'not') {
        result[keyword] = this.convert(value, `${location}/${keyword}`);
      } else if (keyword === 'additionalProperties') {
        result[keyword] = typeof value === 'boolean' ? value : this.convert(value, `${location}/${keyword}`);
      } else if (keyword === 'allOf' || keyword === 'oneOf' || keyword === 'anyOf') {
        if (!Array.isArray(value)) throw new Error(`${location}: ${keyword} must be an array`);
        result[keyword] = value.map((sub, index) => this.convert(sub, `${location}/${keyword}/${index}`));
      } else if (keyword === 'exclusiveMinimum' || keyword === 'exclusiveMaximum') {
        // OpenAPI 3.0 (draft-04) uses a boolean that turns minimum/maximum exclusive.
        const bound = keyword === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        if (value === true) result[keyword] = schema[bound];
      } else if (passThroughKeywords.has(keyword)) {
        result[keyword] = value;
        if (keyword === 'format' && typeof value === 'string') this.formats.add(value);
      } else {
        throw new Error(`${location}: unsupported OpenAPI keyword "${keyword}"`);
      }
    }
    if (schema.exclusiveMinimum === true) delete result.minimum;
    if (schema.exclusiveMaximum === true) delete result.maximum;
    if (schema.nullable === true) widenToNull(result);
    return result;
  }

  private convertComponent(name: string, schema: OpenApiSchema): JsonSchema {
    const result = this.convert(schema, name);
    const parents = this.discriminatedParentsOf(schema);
    if (parents.length === 0 || !Array.isArray(result.allOf)) return result;
    // Extending the parent itself would re-enter its dispatch, which selects this child again.
    const parentByReference = new Map(parents.map((parent) => [this.referenceTo(parent), parent]));
    const parts = result.allOf as JsonSchema[];
    result.allOf = [
      ...parts.map((part) => {
        const parent = typeof part.$ref === 'string' ? parentByReference.get(part.$ref) : undefined;
        return parent === undefined ? part : { $ref: this.baseReferenceTo(parent) };
      }),
      ...parents.map((parent) => this.pinToOwnValues(name, parent)),
    ];
    return result;
  }

  /** Validated on its own, a child still only accepts the discriminator value(s) that select it. */
  private pinToOwnValues(name: string, parent: string): JsonSchema {
    const { propertyName, targetByValue } = this.discriminatorOf(parent);
    const values = [...targetByValue].filter(([, target]) => target === name).map(([value]) => value);
    return { required: [propertyName], properties: { [propertyName]: { enum: values } } };
  }

  private dispatch(name: string, { propertyName, targetByValue }: Discriminator): JsonSchema {
    return {
      allOf: [
        { $ref: this.baseReferenceTo(name) },
        { required: [propertyName], properties: { [propertyName]: { enum: [...targetByValue.keys()] } } },
        ...[...targetByValue].map(([value, target]) => ({
          if: { required: [propertyName], properties: { [propertyName]: { const: value } } },
          then: { $ref: this.referenceTo(target) },
        })),
      ],
    };
  }

  private readDiscriminator(name: string, schema: OpenApiSchema): Discriminator {
    const { discriminator } = schema;
    if (!isRecord(discriminator) || typeof discriminator.propertyName !== 'string') {
      throw new Error(`${this.documentId}: ${name}.discriminator needs a propertyName`);
    }
    const mapping = discriminator.mapping ?? {};
    if (!isRecord(mapping))
      throw new Error(`${this.documentId}: ${name}.discriminator.mapping must be an object`);
    const targetByValue = new Map<string, string>();
    for (const [value, reference] of Object.entries(mapping)) {
      const target = componentName(reference);
      if (target === undefined || !this.schemas.has(target)) {
        throw new Error(`${this.documentId}: ${name}.discriminator.mapping.${value} points nowhere`);
      }
      targetByValue.set(value, target);
    }
    return { propertyName: discriminator.propertyName, targetByValue };
  }

  /** OpenAPI: a child that extends a discriminated parent but is not mapped is selected by its own name. */
  private addImplicitMappings(): void {
    for (const [name, schema] of this.schemas) {
      for (const parent of this.discriminatedParentsOf(schema)) {
        const { targetByValue } = this.discriminatorOf(parent);
        if (![...targetByValue.values()].includes(name)) targetByValue.set(name, name);
      }
    }
  }

  /** Names of the discriminated schemas this one extends through `allOf: [{$ref: Parent}, …]`. */
  private discriminatedParentsOf(schema: OpenApiSchema): string[] {
    if ('$ref' in schema || !Array.isArray(schema.allOf)) return [];
    return schema.allOf
      .map((part: unknown) => (isRecord(part) ? componentName(part.$ref) : undefined))
      .filter((parent): parent is string => parent !== undefined && this.discriminators.has(parent));
  }

  private discriminatorOf(name: string): Discriminator {
    const discriminator = this.discriminators.get(name);
    if (discriminator === undefined) throw new Error(`${this.documentId}: ${name} has no discriminator`);
    return discriminator;
  }

  private baseReferenceTo(name: string): string {
    return `${this.referenceTo(name)}${baseSuffix}`;
  }

  private reference(reference: unknown, location: string): string {
    const name = componentName(reference);
    if (name === undefined) throw new Error(`${location}: only ${componentPrefix}* references are supported`);
    return this.referenceTo(name);
  }
}

/** OpenAPI 3.0 `nullable: true` has no draft-07 keyword: add `null` to the allowed types and values. */
function widenToNull(schema: JsonSchema): void {
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  const values: unknown = schema.enum;
  if (Array.isArray(values) && !values.includes(null)) schema.enum = [...(values as unknown[]), null];
}
