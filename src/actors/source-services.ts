import { fromCallback, fromPromise, type InspectionEvent } from 'xstate';
import type { Clock, InboundMessage, JsonObject, Source } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import {
  CONVERSATION_MACHINE_VERSION,
  defaultConversationSettings,
  type ConversationMachine,
  type ConversationSettings,
  type KnownProfile,
  type Turn,
} from '../machines/index.js';
import {
  OwnershipLostError,
  type Checkpoint,
  type Ownership,
  type SourceHead,
  type SourceOwner,
  type SourceStore,
  type StoredInboxItem,
} from '../persistence/index.js';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import { planInbox, takesAlong, type InboxPlan, type PlanRules } from './inbox-plan.js';
import { encodeConversation, restoreConversation } from './snapshot-codec.js';
import { sourceMachine, type SourceMachine } from './source-machine.js';
import type {
  CheckpointRequest,
  CheckpointResult,
  ConversationActor,
  HeartbeatCommand,
  LoadedConversation,
  NextStep,
  PreparedTurn,
  QuarantineInput,
  RelayWatch,
  SourceContext,
  SourceEvent,
} from './source-types.js';
import { ownerAt, type OwnerIdentity } from './source-owner.js';

/** Completes a message from what is known of the source's speakers; may call LINE. Never throws. */
export type MessageEnricher = (
  message: InboundMessage,
  profiles: ReadonlyMap<string, KnownProfile>,
  /** The turn's signal: a lookup still running when it aborts ends at once. */
  signal?: AbortSignal,
) => Promise<InboundMessage>;

/** Told when a turn starts and ends (the LINE loading animation listens). */
export interface TurnActivityListener {
  turnStarted(source: Source, turnId: string): void;
  turnEnded(source: Source, turnId: string): void;
}

/** What the source machine needs from its host; one set serves every source of a process. */
export interface SourceServices {
  readonly store: SourceStore;
  /** The conversation machine with its services (model, tools, delivery). */
  readonly conversation: ConversationMachine;
  /** From configuration at run time; never persisted. */
  readonly settings: Partial<ConversationSettings>;
  /** This process as an owner of sources. */
  readonly owner: OwnerIdentity;
  /**
   * How long the lease must still be ours when a side effect starts (ms): the longest a side
   * effect's own call may take (the LINE call timeout). Less than `owner.leaseMs`.
   */
  readonly sideEffectMarginMs: number;
  /** Whether an owner's process is known to be dead (same host, PID gone). */
  readonly isOwnerGone: (owner: SourceOwner) => boolean;
  readonly backoff: BackoffOptions;
  /** An idle, released source leaves memory after this long (ms). */
  readonly idleEvictionMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly enrich?: MessageEnricher;
  readonly turnActivity?: TurnActivityListener;
  /** After an unfollow or leave deleted the source's data: cancel what else it had (reminders). */
  readonly onForget?: (source: Source) => Promise<void>;
  /** XState's inspection events of every conversation actor. */
  readonly inspect?: (sourceId: string, event: InspectionEvent) => void;
  /** Whether a new turn's deadline still fits in the host's time (default: always). */
  readonly turnFits?: () => boolean;
  /** Whether other sources wait for a working room, to be let in before this one's next turn. */
  readonly othersWaitForRoom?: () => boolean;
  /** Count an attempt on a turn's inbox items before it starts (poison detection); default: no. */
  readonly countInboxAttempts?: boolean;
  /** Tells the user a message of theirs was set aside (quarantined); default: nobody is told. */
  readonly quarantineNotice?: (message: InboundMessage) => Promise<void>;
  /**
   * Count each resumption of a turn that was in progress when its process died, durably before
   * it goes on, and set the turn aside once it was resumed more often than this (a turn whose
   * resumption kills its process every time must not block the chat); default: not counted.
   */
  readonly maxTurnResumes?: number;
}

/**
 * The source machine with its side effects on the given store and conversation machine.
 * @example
 * const machine = provideSourceServices({ store, conversation, settings, owner, ... });
 * const source = createActor(machine, { input: { sourceId, rules, forgetPolicy } }).start();
 * source.send({ type: 'work.available' });
 */
export function provideSourceServices(services: SourceServices): SourceMachine {
  const { store, clock } = services;
  const settings = { ...defaultConversationSettings, ...services.settings };
  const window = { maxEntries: settings.maxHistoryEntries, maxBytes: settings.maxHistoryBytes };
  const loggerFor = (sourceId: string) => services.logger.child({ sourceId });

  /**
   * Tells the user a message or turn of theirs was set aside; whether it went out. A courtesy,
   * not a condition: a notice LINE refuses (the monthly quota spent, the bot blocked) is logged,
   * and the poison leaves all the same rather than block the chat.
   */
  async function sendSetAsideNotice(message: InboundMessage, logger: Logger): Promise<boolean> {
    if (!services.quarantineNotice) return false;
    try {
      await services.quarantineNotice(message);
      return true;
    } catch (error) {
      logger.error('the set-aside notice could not be sent; set aside all the same', {
        eventId: message.eventId,
        error,
      });
      return false;
    }
  }

  /** Completes a turn's messages (display names, looked up and cached when unknown). */
  async function prepareTurn(
    ownership: Ownership,
    plan: InboxPlan & { kind: 'turn' },
    known: ReadonlyMap<string, KnownProfile>,
    signal: AbortSignal,
  ): Promise<PreparedTurn> {
    // Counted before the turn: a turn that kills its process still leaves its count.
    if (services.countInboxAttempts) {
      for (const key of plan.keys) await store.countAttempt(ownership.sourceId, key);
    }
    const profiles = new Map(known);
    const messages: InboundMessage[] = [];
    for (const message of plan.messages) {
      const enriched = services.enrich ? await services.enrich(message, profiles, signal) : message;
      const sender = enriched.sender;
      if (sender?.profileFetchedAt !== undefined) {
        const profile = {
          fetchedAt: sender.profileFetchedAt,
          ...(sender.displayName !== undefined && { displayName: sender.displayName }),
        };
        profiles.set(sender.userId, profile);
        // A cache: when it cannot be written, the name is looked up again next time.
        await store.saveProfile(ownership, { userId: sender.userId, ...profile }).catch((error: unknown) => {
          loggerFor(ownership.sourceId).warn('saving a profile failed', { error });
        });
      }
      messages.push(enriched);
    }
    return { messages, at: clock.now(), profiles };
  }

  return sourceMachine.provide({
    actors: {
      acquire: fromPromise(async ({ input }: { input: { sourceId: string } }) => {
        const leaseFrom = clock.now();
        const ownership = await store.acquire(
          input.sourceId,
          ownerAt(services.owner, leaseFrom),
          services.isOwnerGone,
        );
        if (!ownership) return undefined;
        if (ownership.previousOwner) {
          loggerFor(input.sourceId).info('source taken over', {
            previousOwner: ownership.previousOwner.ownerId,
            previousFence: ownership.fence - 1,
            previousHeartbeatAt: ownership.previousOwner.heartbeatAt,
            fence: ownership.fence,
          });
        }
        return { ownership, leaseFrom };
      }),
      renew: fromPromise(async ({ input }: { input: { ownership: Ownership } }) => {
        const heartbeatAt = clock.now();
        await store.renew(input.ownership, heartbeatAt);
        loggerFor(input.ownership.sourceId).debug('lease renewed before a side effect', {
          fence: input.ownership.fence,
        });
        return heartbeatAt;
      }),
      load: fromPromise(
        async ({
          input,
        }: {
          input: { sourceId: string; ownership?: Ownership; setAsideTurn?: string };
        }): Promise<LoadedConversation> => {
          const [loaded, profiles] = await Promise.all([
            store.load(input.sourceId, window),
            store.profiles(input.sourceId),
          ]);
          const logger = loggerFor(input.sourceId);
          for (const { record, key, error } of loaded.unreadable ?? []) {
            logger.error(
              record === 'snapshot'
                ? 'stored snapshot cannot be read; starting at idle with its history'
                : 'stored history entry cannot be read; history starts after it',
              { record, key, error },
            );
          }
          const source = sourceOf(loaded.head) ?? (await sourceFromInbox(store, input.sourceId));
          // A turn left in progress by a process that died: counted before it goes on.
          const resumes =
            input.ownership && services.maxTurnResumes !== undefined ? turnResumes(loaded.head) : undefined;
          let head = resumes === undefined ? loaded.head : withTurnResumes(loaded.head!, resumes);
          const { actor, replay } = restoreConversation({
            machine: services.conversation,
            source,
            settings,
            head,
            history: loaded.history,
            logger,
            ...(services.inspect && {
              inspect: (event: InspectionEvent) => services.inspect!(input.sourceId, event),
            }),
          });
          // A turn in progress is set aside when its process died resuming it too many times, or
          // when its source says why (`setAsideTurn`); else counted and resumed.
          const turn = actor.getSnapshot().context.turn;
          const why =
            turn && head && input.setAsideTurn
              ? input.setAsideTurn
              : resumes !== undefined && resumes > services.maxTurnResumes!
                ? 'it was resumed after its process died too many times'
                : undefined;
          if (why) actor.start().send({ type: 'turn.abandon' });
          const setAside = why !== undefined && actor.getSnapshot().context.turn === null;
          if (head && (resumes !== undefined || setAside)) {
            const encoded = setAside
              ? encodeConversation(actor, head.lastSeq)
              : { snapshot: head.snapshot!, appended: [], lastSeq: head.lastSeq, busy: true };
            const version = await store.checkpoint({
              ownership: input.ownership!,
              expectedVersion: head.version,
              machineVersion: CONVERSATION_MACHINE_VERSION,
              snapshot: encoded.snapshot,
              busy: encoded.busy,
              appended: encoded.appended,
              removedSeqs: [],
              consumedKeys: [],
            });
            head = { ...head, version, lastSeq: encoded.lastSeq, busy: encoded.busy };
            if (setAside) {
              logger.error(`turn set aside: ${why}`, {
                turnId: turn?.id,
                ...(resumes !== undefined && { resumes: resumes - 1 }),
              });
              const message = turn && noticeMessage(source, turn);
              if (message) await sendSetAsideNotice(message, logger);
            } else {
              logger.warn('resuming a turn its process left in progress', { turnId: turn?.id, resumes });
            }
          }
          return {
            conversation: actor,
            head,
            replay,
            turnSetAside: setAside,
            profiles: new Map(
              profiles.map((profile) => [
                profile.userId,
                {
                  fetchedAt: profile.fetchedAt,
                  ...(profile.displayName !== undefined && { displayName: profile.displayName }),
                },
              ]),
            ),
          };
        },
      ),
      readInbox: fromPromise(({ input }: { input: { sourceId: string; limit: number } }) =>
        store.inbox(input.sourceId, input.limit),
      ),
      planNext: fromPromise(
        async ({
          input,
          signal,
        }: {
          input: {
            ownership: Ownership;
            replay: readonly InboundMessage[];
            rules: PlanRules;
            mergeFrom: string | undefined;
            profiles: ReadonlyMap<string, KnownProfile>;
            turnsHeld: number;
          };
          signal: AbortSignal;
        }): Promise<NextStep> => {
          const { ownership } = input;
          const next = planInbox(
            await waitingItems(store, ownership.sourceId),
            input.replay,
            input.rules,
            input.mergeFrom,
          );
          if (next.plan.kind === 'unsend') {
            if (next.plan.waitingKey !== undefined || next.plan.markedOnly) {
              loggerFor(ownership.sourceId).info('a message taken back while it waited: dropped unanswered', {
                messageId: next.plan.messageId,
              });
            }
            const storedSeqs = await storedEntriesOf(store, ownership.sourceId, next.plan.messageId);
            return { ...next, plan: { ...next.plan, storedSeqs } };
          }
          // Out of time for a whole turn: left unprepared (no attempt counted), for the next host.
          if (next.plan.kind !== 'turn' || !(services.turnFits?.() ?? true)) return next;
          // Had its turn while others wait for a room: left unprepared too, for when it is let in again.
          if (input.turnsHeld > 0 && services.othersWaitForRoom?.()) return { ...next, givesWay: true };
          return { ...next, prepared: await prepareTurn(ownership, next.plan, input.profiles, signal) };
        },
      ),
      checkpoint: fromPromise(async ({ input }: { input: CheckpointRequest }): Promise<CheckpointResult> => {
        const version = await store.checkpoint(storedCheckpoint(input));
        loggerFor(input.ownership.sourceId).debug('checkpoint', {
          reason: input.reason,
          version,
          released: input.release,
          appended: input.appended.length,
          consumed: input.consumedKeys.length,
        });
        return checkpointResult(input, version);
      }),
      closeTurn: fromPromise(
        async ({
          input,
        }: {
          input: CheckpointRequest;
        }): Promise<CheckpointResult & { released: boolean }> => {
          const closed = await store.closeTurn!(storedCheckpoint(input));
          loggerFor(input.ownership.sourceId).debug('checkpoint', {
            reason: 'close',
            version: closed.version,
            released: closed.released,
            appended: input.appended.length,
            consumed: input.consumedKeys.length,
          });
          return { ...checkpointResult(input, closed.version), released: closed.released };
        },
      ),
      quarantine: fromPromise(async ({ input }: { input: QuarantineInput }) => {
        const logger = loggerFor(input.sourceId);
        const eventId = input.message.eventId;
        logger.error('message set aside: its turns kept failing to finish', { eventId });
        const noticeSent = await sendSetAsideNotice(input.message, logger);
        // Outside the source's step (a promise settles later): the checkpoint that follows stores it.
        input.conversation.send({ type: 'message.quarantined', eventId, at: clock.now(), noticeSent });
      }),
      forget: fromPromise(async ({ input }) => {
        const logger = loggerFor(input.ownership.sourceId);
        await store.forget(input.ownership, input.key);
        logger.info('source forgotten', { reason: input.event.reason });
        await services.onForget?.(input.event.source).catch((error: unknown) => {
          logger.error('cancelling what the forgotten source had scheduled failed', { error });
        });
      }),
      release: fromPromise(async ({ input }: { input: { ownership: Ownership | undefined } }) => {
        if (input.ownership) await store.release(input.ownership);
      }),
      heartbeat: fromCallback<HeartbeatCommand>(({ sendBack, receive }) => {
        // Each command starts a new hold: a renew still in flight from an older one reports nothing.
        let hold = 0;
        let timer: NodeJS.Timeout | undefined;
        const beat = (ownership: Ownership, current: number) => {
          timer = setTimeout(() => {
            const heartbeatAt = clock.now();
            store
              .renew(ownership, heartbeatAt)
              .then(() => {
                if (hold === current) sendBack({ type: 'lease.renewed', at: heartbeatAt });
              })
              .catch((error: unknown) => {
                if (hold !== current) return;
                if (OwnershipLostError.isInstance(error)) sendBack({ type: 'ownership.lost', error });
                else loggerFor(ownership.sourceId).warn('renewing the lease failed', { error });
              })
              .finally(() => {
                if (hold === current) beat(ownership, current);
              });
          }, services.owner.leaseMs / 3);
          timer.unref();
        };
        receive((command) => {
          clearTimeout(timer);
          hold++;
          if (command.type === 'hold') beat(command.ownership, hold);
        });
        return () => {
          hold++;
          clearTimeout(timer);
        };
      }),
      conversationEvents: fromCallback<RelayWatch>(({ sendBack, receive }) => {
        const relay = (event: SourceEvent) => sendBack(event);
        let subscriptions: { unsubscribe(): void }[] = [];
        const unwatch = () => subscriptions.forEach((subscription) => subscription.unsubscribe());
        receive(({ conversation }) => {
          unwatch();
          subscriptions = conversation
            ? [
                // Turn starts go straight to the host (the loading animation): the source has nothing to do.
                conversation.on('turn.started', ({ turnId }) =>
                  services.turnActivity?.turnStarted(conversation.getSnapshot().context.source, turnId),
                ),
                conversation.on('turn.ended', ({ turnId, outcome }) =>
                  relay({ type: 'conversation.turnEnded', turnId, outcome }),
                ),
                conversation.on('checkpoint.needed', ({ turnId, reason }) =>
                  relay({ type: 'conversation.checkpointNeeded', turnId, reason }),
                ),
                conversation.on('history.removed', ({ seqs }) =>
                  relay({ type: 'conversation.historyRemoved', seqs }),
                ),
                conversation.subscribe({ error: (error) => relay({ type: 'conversation.failed', error }) }),
              ]
            : [];
        });
        return unwatch;
      }),
    },
    actions: {
      turnEnded: ({ context, event }) => {
        if (event.type !== 'conversation.turnEnded' || !context.conversation) return;
        const conversation = context.conversation.getSnapshot().context;
        services.turnActivity?.turnEnded(conversation.source, event.turnId);
        logTurn(loggerFor(context.sourceId), event.outcome, conversation.lastTurn);
      },
      turnAbandoned: ({ context }) => {
        const turn = context.conversation?.getSnapshot().context.turn;
        if (turn)
          services.turnActivity?.turnEnded(context.conversation.getSnapshot().context.source, turn.id);
      },
      logFailure: ({ context, event }) => {
        const error = (event as { error?: unknown }).error;
        loggerFor(context.sourceId).error('source step failed; retrying', {
          error,
          attempt: context.failures,
          retryInMs: backoffDelay(context.failures, { ...services.backoff, random: () => 1 }),
        });
      },
      logUnstorable: ({ context, event }) => {
        loggerFor(context.sourceId).error('checkpoint can never be stored; setting the turn aside', {
          error: (event as { error?: unknown }).error,
        });
      },
      setAsideUnreadable: ({ context }) => {
        const { plan } = context;
        if (plan.kind !== 'unreadable') return;
        loggerFor(context.sourceId).error('inbox item cannot be read; set aside without a turn', {
          key: plan.key,
          eventId: plan.eventId,
          error: plan.error,
        });
        // Its event id is all that is known: the inspector shows why that message got no answer.
        if (plan.eventId !== undefined)
          context.conversation?.send({
            type: 'message.quarantined',
            eventId: plan.eventId,
            at: clock.now(),
            noticeSent: false,
          });
      },
      logTakenBack: ({ context }) => {
        const { plan } = context;
        loggerFor(context.sourceId).info('a message taken back during its turn: dropped before its answer', {
          messageIds: plan.kind === 'turn' ? plan.messages.map((message) => message.messageId) : [],
        });
      },
      logLost: ({ context, event }) => {
        loggerFor(context.sourceId).warn(
          'source taken over by another owner; stopping before any side effect',
          {
            error: (event as { error?: unknown }).error,
            fence: context.ownership?.fence,
          },
        );
      },
    },
    guards: {
      closesTurnInOneWrite: ({ context }) => store.closeTurn !== undefined && context.replay.length === 0,
      // The store judges the lease by the heartbeat we wrote; clocks are assumed in step.
      leaseCoversSideEffect: ({ context }) =>
        clock.now() < context.leaseFrom + services.owner.leaseMs - services.sideEffectMarginMs,
    },
    delays: {
      retry: ({ context }: { context: SourceContext }) => backoffDelay(context.failures, services.backoff),
      standBy: services.owner.leaseMs,
      idleEviction: services.idleEvictionMs,
    },
  });
}

/** The store's checkpoint for the source machine's request. */
function storedCheckpoint(input: CheckpointRequest): Checkpoint {
  return {
    ownership: input.ownership,
    expectedVersion: input.expectedVersion,
    machineVersion: CONVERSATION_MACHINE_VERSION,
    snapshot: input.snapshot,
    busy: input.busy,
    appended: input.appended,
    removedSeqs: input.removedSeqs,
    consumedKeys: input.consumedKeys,
    ...(input.answering && input.consumedKeys.length > 0 && { answering: true }),
    ...(input.release && { release: true }),
  };
}

/** What is durable once the store wrote `input` as `version`. */
function checkpointResult(input: CheckpointRequest, version: number): CheckpointResult {
  return {
    version,
    savedSeq: input.lastSeq,
    consumedKeys: input.consumedKeys,
    removedSeqs: input.removedSeqs,
  };
}

function logTurn(
  logger: Logger,
  outcome: string,
  turn: ReturnType<ConversationActor['getSnapshot']>['context']['lastTurn'],
) {
  if (outcome === 'quiet' || !turn) return;
  const fields = { turnId: turn.id, stopReason: turn.stopReason, modelCalls: turn.modelCalls, ...turn.usage };
  if (turn.stopReason === 'model-call-limit' || turn.stopReason === 'model-failed') {
    logger.warn('turn stopped early', fields);
  } else {
    logger.info('turn finished', fields);
  }
}

/** The resumption about to happen of a busy head's turn (1 for the first), or undefined when idle. */
function turnResumes(head: SourceHead | undefined): number | undefined {
  if (!head?.busy) return undefined;
  const turn = (head.snapshot?.context as { turn?: { resumes?: unknown } | null } | undefined)?.turn;
  if (!turn) return undefined;
  return (typeof turn.resumes === 'number' ? turn.resumes : 0) + 1;
}

/** The head with its turn's resumption count set (the snapshot is plain JSON). */
function withTurnResumes(head: SourceHead, resumes: number): SourceHead {
  const snapshot = head.snapshot as { context: { turn: JsonObject } };
  return {
    ...head,
    snapshot: {
      ...head.snapshot,
      context: { ...snapshot.context, turn: { ...snapshot.context.turn, resumes } },
    },
  };
}

/** The turn's message the user is told about: the newest one LINE can still reply to, else the last. */
function noticeMessage(source: Source, turn: Turn): InboundMessage | undefined {
  const message = turn.messages.findLast((candidate) => candidate.replyToken) ?? turn.messages.at(-1);
  return message && { ...message, source, text: '' };
}

function sourceOf(head: SourceHead | undefined): Source | undefined {
  const source = (head?.snapshot?.context as { source?: Source } | undefined)?.source;
  return source && typeof source.id === 'string' ? source : undefined;
}

/** A source never checkpointed: its kind is in its first inbox item (or, failing that, its id). */
async function sourceFromInbox(store: SourceStore, sourceId: string): Promise<Source> {
  const [first] = await store.inbox(sourceId, 1);
  if (first?.item) return first.item.source;
  return {
    id: sourceId,
    kind: sourceId.startsWith('C') ? 'group' : sourceId.startsWith('R') ? 'room' : 'user',
  };
}

/** Far beyond twice the largest window (`KAIWA_MAX_HISTORY_ENTRIES` ≤ 10,000): all a source holds. */
const WHOLE_STORED_HISTORY = { maxEntries: 100_000, maxBytes: 2 ** 30 };

/** A plan reads this many waiting items, oldest first: a turn takes at most these. */
const PLAN_PAGE = 100;
/**
 * How far a full page is read on for what takes its messages along: an inbox holds at most its
 * cap (100 messages) and an overflow item, plus unsends, reminders due (50 at most) and tools'
 * outcomes.
 */
const ALONG_SCAN = 1_000;

/**
 * The waiting items a plan is made of. Behind a full page may wait what takes the page's
 * messages along unanswered — an unfollow or leave (a busy chat whose turns were stuck, then the
 * bot removed), or the unsend of one of them (whose mark a failed write may have left out): read
 * on for it, so that none of them has a turn first — a model call with words the chat asked to
 * be gone, an answer to a chat the bot has left (docs/runtime.md, "Unfollow and leave").
 */
async function waitingItems(store: SourceStore, sourceId: string): Promise<StoredInboxItem[]> {
  const page = await store.inbox(sourceId, PLAN_PAGE);
  if (page.length < PLAN_PAGE || takesAlong(page, page)) return page;
  const further = await store.inbox(sourceId, ALONG_SCAN);
  // Nothing there either: the page alone, so a turn takes what it took before.
  return takesAlong(further, page) ? further : page;
}

/**
 * The seqs of a message's entries in everything the store holds of the source: LINE lets a user
 * take a message back for a day, and a busy chat passes its history window in far less. An
 * unsend is rare, so reading the whole stored history (at most twice the window: retention
 * compacts the rest) costs little.
 */
async function storedEntriesOf(store: SourceStore, sourceId: string, messageId: string): Promise<number[]> {
  const { history } = await store.load(sourceId, WHOLE_STORED_HISTORY);
  return history
    .filter(({ entry }) => entry.role === 'user' && entry.messageId === messageId)
    .map(({ seq }) => seq);
}
