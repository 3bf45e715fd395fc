import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { OWNER_ATTRIBUTES, headKey, ownerAttributes } from './dynamodb-source-items.js';
import { lostOwnership, returnedNumber, returnedString } from './dynamodb-returned-item.js';
import type { WriteSteps } from './dynamodb-write-steps.js';
import type { TableClient } from './dynamodb-writes.js';
import { OwnershipLostError } from './ownership-lost-error.js';
import type { Ownership, SourceOwner } from './source-store.js';

// Ownership of a source lives on its head item: conditional updates of one item, so each is a
// standard write (1 WCU for a head under 1 KB). See docs/persistence.md, "Ownership".

/**
 * Takes the source when nobody owns it, the owner's lease ran out or the owner is the caller
 * itself; else, when `isGone` says the owner's process is dead, takes it over on the fence that
 * was read. Creates the head when the source has none (version 0, no snapshot). Undefined while
 * another live owner holds it.
 */
export async function acquireHead(
  table: TableClient,
  sourceId: string,
  owner: SourceOwner,
  isGone: (owner: SourceOwner) => boolean,
  options: { readonly now: number; readonly steps: WriteSteps },
): Promise<Ownership | undefined> {
  const { now, steps } = options;
  try {
    return await takeHead(table, sourceId, owner, now, steps, {
      condition: 'attribute_not_exists(#ownerId) OR #leaseUntil < :now OR #ownerId = :ownerId',
      values: { ':now': now },
    });
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const current = ownerOfReturnedItem(error.Item);
    const fence = returnedNumber(error.Item, 'fence');
    if (current === undefined || fence === undefined || !isGone(current)) return undefined;
    try {
      // Only on the fence read: another process that took over meanwhile wins.
      return await takeHead(table, sourceId, owner, now, steps, {
        condition: '#fence = :readFence',
        values: { ':readFence': fence },
      });
    } catch (retryError) {
      if (retryError instanceof ConditionalCheckFailedException) return undefined;
      throw retryError;
    }
  }
}

async function takeHead(
  table: TableClient,
  sourceId: string,
  owner: SourceOwner,
  now: number,
  steps: WriteSteps,
  guard: { condition: string; values: Record<string, unknown> },
): Promise<Ownership> {
  const attributes = ownerAttributes(owner);
  const names = Object.keys(attributes);
  const { Attributes } = await steps.commit(() =>
    table.documents.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: headKey(sourceId),
        UpdateExpression:
          `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}, ` +
          '#fence = if_not_exists(#fence, :zero) + :one, #version = if_not_exists(#version, :zero), ' +
          '#machineVersion = if_not_exists(#machineVersion, :zero), #lastSeq = if_not_exists(#lastSeq, :zero), ' +
          '#pagedThrough = if_not_exists(#pagedThrough, :zero), #busy = if_not_exists(#busy, :false), ' +
          '#updatedAt = if_not_exists(#updatedAt, :createdAt)',
        ConditionExpression: guard.condition,
        ExpressionAttributeNames: Object.fromEntries(
          [
            ...names,
            'fence',
            'version',
            'machineVersion',
            'lastSeq',
            'pagedThrough',
            'busy',
            'updatedAt',
          ].map((name) => [`#${name}`, name]),
        ),
        ExpressionAttributeValues: {
          ...Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`:${name}`, value])),
          ':zero': 0,
          ':one': 1,
          ':false': false,
          ':createdAt': now,
          ...guard.values,
        },
        // The head as it was: its owner, when another one, is logged as taken over.
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ),
  );
  const previousOwner = ownerOfReturnedItem(Attributes);
  return {
    sourceId,
    ownerId: owner.ownerId,
    fence: (returnedNumber(Attributes, 'fence') ?? 0) + 1,
    version: returnedNumber(Attributes, 'version') ?? 0,
    ...(previousOwner && previousOwner.ownerId !== owner.ownerId && { previousOwner }),
  };
}

/** Moves the lease on; `OwnershipLostError` when the fence moved on or the owner changed. */
export async function renewHead(
  table: TableClient,
  ownership: Ownership,
  heartbeatAt: number,
  steps: WriteSteps,
): Promise<void> {
  try {
    await steps.commit(() =>
      table.documents.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: headKey(ownership.sourceId),
          UpdateExpression: 'SET #heartbeatAt = :heartbeatAt, #leaseUntil = :heartbeatAt + #leaseMs',
          ...ownedBy(
            ownership,
            { '#heartbeatAt': 'heartbeatAt', '#leaseUntil': 'leaseUntil', '#leaseMs': 'leaseMs' },
            { ':heartbeatAt': heartbeatAt },
          ),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) {
      throw (
        lostOwnership(ownership, error.Item) ??
        new OwnershipLostError(ownership.sourceId, ownership.fence, undefined, undefined)
      );
    }
    throw error;
  }
}

/** Gives the source up; nothing happens when it was lost already. */
export async function releaseHead(
  table: TableClient,
  ownership: Ownership,
  steps: WriteSteps,
): Promise<void> {
  try {
    await steps.commit(() =>
      table.documents.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: headKey(ownership.sourceId),
          UpdateExpression: `REMOVE ${OWNER_ATTRIBUTES.map((name) => `#${name}`).join(', ')}`,
          ...ownedBy(ownership, Object.fromEntries(OWNER_ATTRIBUTES.map((name) => [`#${name}`, name]))),
        }),
      ),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * The condition every owner-only write of the head carries, with its names and values merged
 * into the write's own.
 */
export function ownedBy(
  ownership: Ownership,
  names: Record<string, string>,
  values: Record<string, unknown> = {},
) {
  return {
    ConditionExpression: '#fence = :fence AND #ownerId = :ownerId',
    ExpressionAttributeNames: { ...names, '#fence': 'fence', '#ownerId': 'ownerId' },
    ExpressionAttributeValues: { ...values, ':fence': ownership.fence, ':ownerId': ownership.ownerId },
  };
}

function ownerOfReturnedItem(item: unknown): SourceOwner | undefined {
  const ownerId = returnedString(item, 'ownerId');
  if (ownerId === undefined) return undefined;
  return {
    ownerId,
    host: returnedString(item, 'ownerHost') ?? '',
    pid: returnedNumber(item, 'ownerPid') ?? 0,
    heartbeatAt: returnedNumber(item, 'heartbeatAt') ?? 0,
    leaseMs: returnedNumber(item, 'leaseMs') ?? 0,
  };
}
