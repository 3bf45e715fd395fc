import type { webhook } from '@line/bot-sdk';
import type { ErrorObject } from 'ajv';
import { exceedsBounds, pointerSegment, type JsonBounds, type SourceKind } from '../domain/index.js';
import { isLineId } from './line-ids.js';
import * as generated from './openapi/webhook-event-validate.js';

/**
 * LINE's events are shallow (a mention is five levels down) and short (a text is at most 5,000
 * characters); these bounds leave room for what LINE may add and stop what no LINE event holds.
 */
export const eventBounds: JsonBounds = { maxDepth: 16, maxStringLength: 20_000, maxValues: 5_000 };

/** Where an event breaks LINE's schema (or kaiwa's bounds): schema locations only, never a value. */
export interface EventProblem {
  /** The ajv keyword that failed (`type`, `required`, `pattern`, `maxDepth`, …). */
  readonly keyword: string;
  /** The failing rule, relative to the schema that holds it (`#/allOf/1/required`). */
  readonly schemaPath: string;
  /** Where in the event (`/message/text`); keys a sender made up are shown as `*`. */
  readonly instancePath: string;
  /** For `required`: the property LINE's schema asks for. */
  readonly missingProperty?: string;
}

/** What the edge does with one event of a webhook body. */
export type EventVerdict =
  | { readonly kind: 'valid'; readonly event: webhook.Event }
  /** A type LINE does not document (yet): LINE adds event, message and source types over time. */
  | { readonly kind: 'unknown'; readonly what: 'event' | 'message' | 'source' }
  | { readonly kind: 'invalid'; readonly problem: EventProblem };

const sourceIdProperty: Record<SourceKind, 'userId' | 'groupId' | 'roomId'> = {
  user: 'userId',
  group: 'groupId',
  room: 'roomId',
};

/** What the validator is built from: `webhook-event-validate.js`, or a stand-in in a test. */
export interface CompiledWebhookSchema {
  readonly validate: { (data: unknown): boolean; errors?: ErrorObject[] | null };
  readonly eventTypes: readonly string[];
  readonly messageTypes: readonly string[];
  readonly sourceTypes: readonly string[];
}

/**
 * Checks each webhook event against LINE's webhook schema (`webhook.yml`, discriminators
 * binding) before kaiwa trusts any of it: bounded in depth and size first, then the schema, then
 * the source ids and the event id that become store keys, and a timestamp a date can hold. The
 * schema is compiled ahead of time by ajv (`npm run line-schemas` →
 * `openapi/webhook-event-validate.js`), so no request — and no Lambda cold start — waits for a
 * compile; a check is a few microseconds.
 *
 * @example
 * const verdict = WebhookEventValidator.shared().check(body.events[0]);
 * if (verdict.kind === 'valid') accept(verdict.event);
 */
export class WebhookEventValidator {
  private static instance: WebhookEventValidator | undefined;
  private readonly validate: CompiledWebhookSchema['validate'];
  private readonly eventTypes: ReadonlySet<string>;
  private readonly messageTypes: ReadonlySet<string>;
  private readonly sourceTypes: ReadonlySet<string>;

  constructor(schema: CompiledWebhookSchema = generated) {
    this.validate = schema.validate;
    this.eventTypes = new Set(schema.eventTypes);
    this.messageTypes = new Set(schema.messageTypes);
    this.sourceTypes = new Set(schema.sourceTypes);
  }

  /** One validator per process. */
  static shared(): WebhookEventValidator {
    WebhookEventValidator.instance ??= new WebhookEventValidator();
    return WebhookEventValidator.instance;
  }

  check(raw: unknown): EventVerdict {
    if (!isRecord(raw)) return invalid({ keyword: 'type', schemaPath: '#/type', instancePath: '' });
    const outOfBounds = exceedsBounds(raw, eventBounds);
    if (outOfBounds)
      return invalid({ ...outOfBounds, schemaPath: `kaiwa#/eventBounds/${outOfBounds.keyword}` });
    const unknown = this.unknownType(raw);
    if (unknown) return { kind: 'unknown', what: unknown };
    if (!this.validate(raw)) return invalid(problemOf(this.validate.errors?.[0]));
    const problem =
      sourceIdProblem(raw.source) ?? eventIdProblem(raw.webhookEventId) ?? timestampProblem(raw.timestamp);
    if (problem) return invalid(problem);
    return { kind: 'valid', event: raw as unknown as webhook.Event };
  }

  private unknownType(event: Record<string, unknown>): 'event' | 'message' | 'source' | undefined {
    const typeOf = (value: unknown) =>
      isRecord(value) && typeof value.type === 'string' ? value.type : undefined;
    const eventType = typeOf(event);
    if (eventType !== undefined && !this.eventTypes.has(eventType)) return 'event';
    const messageType = eventType === 'message' ? typeOf(event.message) : undefined;
    if (messageType !== undefined && !this.messageTypes.has(messageType)) return 'message';
    const sourceType = typeOf(event.source);
    if (sourceType !== undefined && !this.sourceTypes.has(sourceType)) return 'source';
    return undefined;
  }
}

/** The source's own id must be LINE-shaped for its type, and so must the sender's. */
function sourceIdProblem(source: unknown): EventProblem | undefined {
  if (!isRecord(source)) return undefined;
  const kind = source.type as SourceKind;
  const property = sourceIdProperty[kind];
  const checks: [string, SourceKind][] = [[property, kind]];
  if (property !== 'userId') checks.push(['userId', 'user']);
  for (const [name, idKind] of checks) {
    if (source[name] !== undefined && !isLineId(idKind, source[name])) {
      return { keyword: 'pattern', schemaPath: `kaiwa#/lineIds/${idKind}`, instancePath: `/source/${name}` };
    }
  }
  return undefined;
}

/**
 * LINE's event ids are ULIDs (26 letters and digits); the schema says only "string". The id
 * becomes part of store keys (the claim, the inbox item): 2,000 characters passed DynamoDB's key
 * limit and failed the whole webhook, and a `#` would split a key where kaiwa splits it.
 */
const EVENT_ID = /^[0-9A-Za-z_-]{1,64}$/;

function eventIdProblem(id: unknown): EventProblem | undefined {
  return typeof id === 'string' && !EVENT_ID.test(id)
    ? { keyword: 'pattern', schemaPath: 'kaiwa#/webhookEventId', instancePath: '/webhookEventId' }
    : undefined;
}

/**
 * A time a date can hold: `webhook.yml` allows any int64, but 9.2 × 10¹⁸ ms is no date, and its
 * message made every later model call of its chat throw while it stayed in history.
 */
const LATEST_DATE_MS = 8.64e15;

function timestampProblem(timestamp: unknown): EventProblem | undefined {
  return typeof timestamp === 'number' && !(timestamp >= 0 && timestamp <= LATEST_DATE_MS)
    ? { keyword: 'maximum', schemaPath: 'kaiwa#/timestamp', instancePath: '/timestamp' }
    : undefined;
}

function problemOf(error: ErrorObject | undefined): EventProblem {
  if (!error) return { keyword: 'unknown', schemaPath: '#', instancePath: '' };
  const missing = (error.params as { missingProperty?: unknown }).missingProperty;
  return {
    keyword: error.keyword,
    schemaPath: error.schemaPath,
    instancePath: error.instancePath
      .split('/')
      .map((segment, index) => (index === 0 ? segment : pointerSegment(segment)))
      .join('/'),
    ...(typeof missing === 'string' && { missingProperty: pointerSegment(missing) }),
  };
}

function invalid(problem: EventProblem): EventVerdict {
  return { kind: 'invalid', problem };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
