import type { JsonObject } from '../domain/index.js';
import type { FirstWaveConversation } from './first-wave-conversation.js';

/** Epoch seconds, as DynamoDB's time to live reads them. */
export function toEpochSeconds(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}

/** A first-wave `CONVERSATION` item, read for its migration: the snapshot is a JSON string. */
export function conversationFromItem(item: Record<string, unknown>): FirstWaveConversation {
  return {
    sourceId: readString(item, 'pk'),
    version: readNumber(item, 'version'),
    machineVersion: readNumber(item, 'machineVersion'),
    snapshot: JSON.parse(readString(item, 'snapshot')) as JsonObject,
    busy: item.busy === true,
    updatedAt: readNumber(item, 'updatedAt'),
  };
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
