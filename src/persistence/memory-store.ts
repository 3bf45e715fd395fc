import type { InboxItem } from '../domain/index.js';
import { defaults } from '../defaults/index.js';
import { admitToInbox } from './inbox-cap.js';
import type { ConversationStore, SaveRequest, StoredConversation } from './conversation-store.js';
import { VersionConflictError } from './version-conflict-error.js';

export interface MemoryStoreOptions {
  /** How long a claimed event id is remembered (ms). */
  claimTtlMs?: number;
  now?: () => number;
  /** Messages waiting per source before they are counted into an overflow item (`admitToInbox`). */
  maxInbox?: number;
}

/**
 * The store in memory. Every save and load goes through a JSON round trip, so it behaves
 * (and costs) like a real store: no shared references between the actor and the store.
 */
export class MemoryStore implements ConversationStore {
  // Values are kept serialised; the fields needed for checks sit beside the JSON so that a
  // save never parses what it replaces.
  private readonly conversations = new Map<string, { version: number; busy: boolean; json: string }>();
  private readonly inboxes = new Map<string, { eventId: string; json: string }[]>();
  private readonly claims = new Map<string, number>();
  private readonly claimTtlMs: number;
  private readonly now: () => number;
  private readonly maxInbox: number;
  private acceptedSincePrune = 0;

  constructor(options: MemoryStoreOptions = {}) {
    this.claimTtlMs = options.claimTtlMs ?? 7 * 24 * 3600_000;
    this.now = options.now ?? Date.now;
    this.maxInbox = options.maxInbox ?? defaults.store.maxInbox;
  }

  accept(message: InboxItem): Promise<boolean> {
    this.pruneClaims();
    const expiresAt = this.claims.get(message.eventId);
    if (expiresAt !== undefined && expiresAt > this.now()) return Promise.resolve(false);
    this.claims.set(message.eventId, this.now() + this.claimTtlMs);
    const inbox = this.inboxes.get(message.source.id) ?? [];
    const last = inbox.at(-1);
    const admission = admitToInbox(
      message,
      { waiting: inbox.length, last: last && (JSON.parse(last.json) as InboxItem) },
      this.maxInbox,
    );
    const stored = { eventId: admission.item.eventId, json: JSON.stringify(admission.item) };
    if (admission.kind === 'replace') inbox[inbox.length - 1] = stored;
    else inbox.push(stored);
    this.inboxes.set(message.source.id, inbox);
    return Promise.resolve(true);
  }

  inbox(sourceId: string): Promise<InboxItem[]> {
    return Promise.resolve(
      (this.inboxes.get(sourceId) ?? []).map((item) => JSON.parse(item.json) as InboxItem),
    );
  }

  load(sourceId: string): Promise<StoredConversation | undefined> {
    const stored = this.conversations.get(sourceId);
    return Promise.resolve(
      stored === undefined ? undefined : (JSON.parse(stored.json) as StoredConversation),
    );
  }

  save(request: SaveRequest): Promise<number> {
    const current = this.conversations.get(request.sourceId);
    const currentVersion = current?.version ?? 0;
    if (currentVersion !== request.expectedVersion) {
      return Promise.reject(
        new VersionConflictError(request.sourceId, request.expectedVersion, currentVersion),
      );
    }
    const version = currentVersion + 1;
    const record: StoredConversation = {
      sourceId: request.sourceId,
      version,
      machineVersion: request.machineVersion,
      snapshot: request.snapshot,
      busy: request.busy,
      updatedAt: this.now(),
    };
    this.conversations.set(request.sourceId, { version, busy: request.busy, json: JSON.stringify(record) });
    if (request.consumedEventIds.length > 0) {
      const consumed = new Set(request.consumedEventIds);
      const remaining = (this.inboxes.get(request.sourceId) ?? []).filter(
        (item) => !consumed.has(item.eventId),
      );
      if (remaining.length > 0) this.inboxes.set(request.sourceId, remaining);
      else this.inboxes.delete(request.sourceId);
    }
    return Promise.resolve(version);
  }

  sourcesWithWork(): Promise<string[]> {
    const busy = [...this.conversations].filter(([, record]) => record.busy).map(([sourceId]) => sourceId);
    return Promise.resolve([...new Set([...this.inboxes.keys(), ...busy])]);
  }

  listSources(): Promise<string[]> {
    return Promise.resolve([...new Set([...this.conversations.keys(), ...this.inboxes.keys()])]);
  }

  deleteSource(sourceId: string): Promise<void> {
    this.conversations.delete(sourceId);
    this.inboxes.delete(sourceId);
    return Promise.resolve();
  }

  private pruneClaims() {
    if (++this.acceptedSincePrune < 1000) return;
    this.acceptedSincePrune = 0;
    const now = this.now();
    for (const [eventId, expiresAt] of this.claims) if (expiresAt <= now) this.claims.delete(eventId);
  }
}
