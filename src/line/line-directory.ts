import { HTTPFetchError, messagingApi } from '@line/bot-sdk';
import type { MessageEnricher } from '../actors/index.js';
import type { Clock, InboundMessage, Source } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import type { KnownProfile } from '../machines/index.js';
import { scopedClient } from './sdk-http-client.js';

/** A lookup LINE failed to answer is tried again this much later (ms), not after the whole TTL. */
const RETRY_FAILED_LOOKUP_MS = 10 * 60_000;

export interface LineDirectoryOptions {
  /** A client whose calls go through the LINE transport (`createMessagingApiClient`). */
  readonly client: messagingApi.MessagingApiClient;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A display name is looked up again after this long (ms). */
  readonly profileTtlMs?: number;
}

/**
 * Completes messages with what LINE knows: the sender's display name (getProfile in 1:1,
 * getGroupMemberProfile / getRoomMemberProfile in groups and rooms, cached in the store's
 * profile items, which the host keeps in memory), and a group's name and member count when the bot joins or members change.
 * A lookup that fails (404 for a user who left, say) leaves the message as it was.
 */
export class LineDirectory {
  private readonly profileTtlMs: number;

  constructor(private readonly options: LineDirectoryOptions) {
    this.profileTtlMs = options.profileTtlMs ?? 24 * 3600_000;
  }

  readonly enrich: MessageEnricher = async (message, profiles, signal) => {
    // The turn's signal ends a lookup still running; 404 is an answer (a user who left the group).
    const client = scopedClient(this.options.client, { ...(signal && { signal }), expectedStatuses: [404] });
    const [sender, chat] = await Promise.all([
      this.sender(client, message, profiles),
      this.chatDetails(client, message),
    ]);
    return { ...message, ...(sender && { sender }), ...chat };
  };

  private async sender(
    client: messagingApi.MessagingApiClient,
    message: InboundMessage,
    profiles: ReadonlyMap<string, KnownProfile>,
  ): Promise<InboundMessage['sender']> {
    const sender = message.sender;
    if (!sender || sender.displayName) return sender;
    const known = profiles.get(sender.userId);
    const now = this.options.clock.now();
    if (known && now - known.fetchedAt < this.profileTtlMs) {
      return known.displayName ? { ...sender, displayName: known.displayName } : sender;
    }
    const { value: displayName, transient } = await this.lookup('profile', message.source, () =>
      this.profile(client, message.source, sender.userId),
    );
    // A failed lookup is remembered too, so a missing profile is not asked for on every message:
    // a profile LINE has not (404) for the whole TTL, one it failed to give (5xx, 429, a timeout)
    // for a few minutes only, as if fetched that long before the TTL runs out.
    const fetchedAt = transient ? Math.min(now, now - this.profileTtlMs + RETRY_FAILED_LOOKUP_MS) : now;
    return { ...sender, profileFetchedAt: fetchedAt, ...(displayName && { displayName }) };
  }

  private async profile(
    client: messagingApi.MessagingApiClient,
    source: Source,
    userId: string,
  ): Promise<string> {
    if (source.kind === 'group') return (await client.getGroupMemberProfile(source.id, userId)).displayName;
    if (source.kind === 'room') return (await client.getRoomMemberProfile(source.id, userId)).displayName;
    return (await client.getProfile(userId)).displayName;
  }

  /** On join and member changes: the group's name and how many are in it. */
  private async chatDetails(
    client: messagingApi.MessagingApiClient,
    message: InboundMessage,
  ): Promise<Partial<InboundMessage>> {
    const { source } = message;
    const membershipChanged =
      message.lineEvent === 'join' ||
      message.lineEvent === 'memberJoined' ||
      message.lineEvent === 'memberLeft';
    if (source.kind === 'user' || !membershipChanged) return {};
    const [title, count] = await Promise.all([
      source.kind === 'group'
        ? this.lookup(
            'group summary',
            source,
            async () => (await client.getGroupSummary(source.id)).groupName,
          ).then(({ value }) => value)
        : undefined,
      this.lookup('member count', source, async () =>
        source.kind === 'group'
          ? (await client.getGroupMemberCount(source.id)).count
          : (await client.getRoomMemberCount(source.id)).count,
      ).then(({ value }) => value),
    ]);
    return {
      ...(title !== undefined && { chatTitle: title }),
      ...(count !== undefined && { memberCount: count }),
    };
  }

  /** The value, or none: `transient` when LINE failed to answer rather than had nothing (404, 4xx). */
  private async lookup<T>(
    what: string,
    source: Source,
    call: () => Promise<T>,
  ): Promise<{ value?: T; transient: boolean }> {
    try {
      return { value: await call(), transient: false };
    } catch (error) {
      const status = error instanceof HTTPFetchError ? error.status : undefined;
      // 404 is expected (a user who left the group): only worth a debug line.
      this.options.logger[status === 404 ? 'debug' : 'warn'](`LINE ${what} lookup failed`, {
        sourceId: source.id,
        status,
        requestId: error instanceof HTTPFetchError ? error.headers.get('x-line-request-id') : undefined,
        ...(status === undefined && { error }),
      });
      return { transient: status === undefined || status === 429 || status >= 500 };
    }
  }
}
