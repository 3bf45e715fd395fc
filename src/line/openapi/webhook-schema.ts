import generated from './webhook-schema.json' with { type: 'json' };
import type { JsonSchema } from './openapi-to-json-schema.js';

/** `webhook.yml` converted to JSON Schema ahead of time, with the discriminator values it knows. */
export interface WebhookSchemaFile {
  /** Where the file comes from; it is generated, never edited. */
  readonly source: string;
  /** `format`s the document uses; those ajv-formats does not know are annotations. */
  readonly formats: readonly string[];
  /** `Event.type` values LINE documents; any other is a type LINE added later. */
  readonly eventTypes: readonly string[];
  /** `MessageContent.type` values LINE documents. */
  readonly messageTypes: readonly string[];
  /** `Source.type` values LINE documents. */
  readonly sourceTypes: readonly string[];
  /** The converted document (`$id: webhook`); compile `webhook#/definitions/Event` against it. */
  readonly document: JsonSchema;
}

/**
 * LINE's webhook schema for the edge validator. It is JSON rather than YAML read at start-up
 * so the Lambda bundle carries it and no request waits for a YAML parse.
 */
export const webhookSchema: WebhookSchemaFile = generated;
