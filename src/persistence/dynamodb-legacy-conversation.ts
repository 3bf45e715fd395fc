import type { HistoryEntry, JsonObject } from '../domain/index.js';
import { readNumber, readString, type StoredItem } from './dynamodb-source-items.js';
import type { HistoryRecord, StoredProfile } from './source-store.js';

// The first wave stored a source as one `CONVERSATION` item: the whole actor snapshot, history,
// settings and cached profiles included, as one JSON string. The v2 store splits it on first
// load (docs/persistence.md, "Migration from the first wave").

/** What a first-wave conversation becomes: a head, history records and profile items. */
export interface MigratedConversation {
  readonly version: number;
  readonly machineVersion: number;
  /** The snapshot without `history`, `settings` and `profiles`, which live elsewhere now. */
  readonly snapshot: JsonObject;
  /** The history, oldest first, numbered from 1. */
  readonly records: HistoryRecord[];
  readonly profiles: StoredProfile[];
  readonly busy: boolean;
  readonly updatedAt: number;
}

/** Splits a first-wave `CONVERSATION` item (as the document client reads it). */
export function splitLegacyConversation(item: StoredItem): MigratedConversation {
  const snapshot = JSON.parse(readString(item, 'snapshot')) as JsonObject;
  const context = isObject(snapshot.context) ? snapshot.context : {};
  const { history, settings: _settings, profiles, ...rest } = context;
  const entries = Array.isArray(history) ? (history as unknown as HistoryEntry[]) : [];
  return {
    version: readNumber(item, 'version'),
    machineVersion: readNumber(item, 'machineVersion'),
    snapshot: { ...snapshot, context: rest },
    records: entries.map((entry, index) => ({ seq: index + 1, entry })),
    profiles: isObject(profiles)
      ? Object.entries(profiles).flatMap(([userId, profile]) =>
          isObject(profile) && typeof profile.fetchedAt === 'number'
            ? [
                {
                  userId,
                  ...(typeof profile.displayName === 'string' && { displayName: profile.displayName }),
                  fetchedAt: profile.fetchedAt,
                },
              ]
            : [],
        )
      : [],
    busy: item.busy === true,
    updatedAt: readNumber(item, 'updatedAt'),
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
