import { OwnershipLostError } from './ownership-lost-error.js';
import type { Ownership } from './source-store.js';

// DynamoDB returns the item that failed a condition (`ReturnValuesOnConditionCheckFailure:
// ALL_OLD`) in its low-level shape (`{ N: "3" }`) even through the document client, and in the
// document client's plain shape elsewhere. These read either, for the scalars kaiwa checks.

/** A numeric attribute of a returned item; undefined when absent. */
export function returnedNumber(item: unknown, name: string): number | undefined {
  const value = (item as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'number') return value;
  const number = (value as { N?: unknown } | undefined)?.N;
  return typeof number === 'string' ? Number(number) : undefined;
}

/** A string attribute of a returned item; undefined when absent. */
export function returnedString(item: unknown, name: string): string | undefined {
  const value = (item as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'string') return value;
  const string = (value as { S?: unknown } | undefined)?.S;
  return typeof string === 'string' ? string : undefined;
}

/**
 * The head an owner-only write was refused by, when it says the ownership is gone: another
 * fence, or no owner or another one (released). Undefined when the caller still owns it.
 */
export function lostOwnership(ownership: Ownership, head: unknown): OwnershipLostError | undefined {
  const fence = returnedNumber(head, 'fence');
  const ownerId = returnedString(head, 'ownerId');
  if (fence === ownership.fence && ownerId === ownership.ownerId) return undefined;
  return new OwnershipLostError(ownership.sourceId, ownership.fence, fence, ownerId);
}
