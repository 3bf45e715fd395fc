import type { InboundMessage, JsonObject } from '../domain/index.js';
import type { SaveRequest, StoredConversation } from './conversation-store.js';
import {
  CLAIM_SORT_KEY,
  CONVERSATION_SORT_KEY,
  claimPartitionKey,
  inboxSortKey,
  workShard,
} from './dynamodb-table.js';

// How kaiwa's records map to DynamoDB items and back. Snapshots and messages are stored as
// JSON strings, not as DynamoDB maps: a map would cap nesting at 32 levels (tool arguments
// nest freely), bill every nested key name, and round-trip numbers through DynamoDB's own
// number type; a string is written and read back byte for byte, and its size is known
// before the write.

/** A DynamoDB item of plain scalars, as the document client reads and writes it. */
export type Item = Record<string, string | number | boolean>;

/** The conversation item a save writes: the whole item, replaced under the version check. */
export function conversationItem(
  request: SaveRequest,
  options: { now: number; expiresAtSeconds: number | undefined },
): Item {
  return {
    pk: request.sourceId,
    sk: CONVERSATION_SORT_KEY,
    version: request.expectedVersion + 1,
    machineVersion: request.machineVersion,
    snapshot: JSON.stringify(request.snapshot),
    busy: request.busy,
    updatedAt: options.now,
    ...(options.expiresAtSeconds !== undefined && { expiresAt: options.expiresAtSeconds }),
    // Only while busy: the sparse work index then lists the source for recovery.
    ...(request.busy && { work: workShard(request.sourceId) }),
  };
}

export function conversationFromItem(item: Record<string, unknown>): StoredConversation {
  return {
    sourceId: readString(item, 'pk'),
    version: readNumber(item, 'version'),
    machineVersion: readNumber(item, 'machineVersion'),
    snapshot: JSON.parse(readString(item, 'snapshot')) as JsonObject,
    busy: item.busy === true,
    updatedAt: readNumber(item, 'updatedAt'),
  };
}

/** An inbox message: its own item under the source's partition, so a stream insert names the source. */
export function inboxItem(message: InboundMessage, options: { now: number; arrival: string }): Item {
  return {
    pk: message.source.id,
    sk: inboxSortKey(message.timestamp, options.arrival, message.eventId),
    eventId: message.eventId,
    message: JSON.stringify(message),
    acceptedAt: options.now,
    work: workShard(message.source.id),
  };
}

export function messageFromItem(item: Record<string, unknown>): InboundMessage {
  return JSON.parse(readString(item, 'message')) as InboundMessage;
}

/** An event claim: no source id in it, so a deleted source leaves nothing personal behind. */
export function claimItem(eventId: string, options: { now: number; expiresAtSeconds: number }): Item {
  return {
    pk: claimPartitionKey(eventId),
    sk: CLAIM_SORT_KEY,
    claimedAt: options.now,
    expiresAt: options.expiresAtSeconds,
  };
}

/**
 * The `version` of an item DynamoDB returned with a failed condition (`ALL_OLD`), in either
 * shape: the document client's plain number or the low-level `{ N: "3" }`.
 */
export function versionOfReturnedItem(item: unknown): number | undefined {
  const version = (item as { version?: unknown } | undefined)?.version;
  if (typeof version === 'number') return version;
  const number = (version as { N?: unknown } | undefined)?.N;
  return typeof number === 'string' ? Number(number) : undefined;
}

export function toEpochSeconds(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}

function readString(item: Record<string, unknown>, name: string): string {
  const value = item[name];
  if (typeof value !== 'string')
    throw new TypeError(`stored item ${String(item.pk)}: ${name} is not a string`);
  return value;
}

function readNumber(item: Record<string, unknown>, name: string): number {
  const value = item[name];
  if (typeof value !== 'number')
    throw new TypeError(`stored item ${String(item.pk)}: ${name} is not a number`);
  return value;
}
