import type { SourceKind } from '../domain/index.js';

/**
 * LINE's ids: `U` + 32 hex digits for a user, `C…` for a group, `R…` for a room. Checked at the
 * edge because a source id becomes a store key (a file name, a DynamoDB partition key), and a
 * malformed one — `[]`, `../x`, a megabyte of text — must never get that far.
 */
const patterns: Record<SourceKind, RegExp> = {
  user: /^U[0-9a-f]{32}$/,
  group: /^C[0-9a-f]{32}$/,
  room: /^R[0-9a-f]{32}$/,
};

/** Whether `id` is a well-formed LINE id of a user, group or room. */
export function isLineId(kind: SourceKind, id: unknown): id is string {
  return typeof id === 'string' && patterns[kind].test(id);
}
