import type { ErrorObject } from 'ajv';

/** LINE's `Event` schema (webhook.yml), compiled ahead of time; `errors` holds the first problem. */
export declare const validate: {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
};
export default validate;

/** `Event.type` values LINE documents; any other is a type LINE added later. */
export declare const eventTypes: readonly string[];
/** `MessageContent.type` values LINE documents. */
export declare const messageTypes: readonly string[];
/** `Source.type` values LINE documents. */
export declare const sourceTypes: readonly string[];
