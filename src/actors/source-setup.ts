import { assign, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import { defaults } from '../defaults/index.js';
import type { ForgetEvent, InboundMessage } from '../domain/index.js';
import { AWAITING_CHECKPOINT_TAG, type ConversationEvent, type KnownProfile } from '../machines/index.js';
import {
  ItemTooLargeError,
  MessageTakenBackError,
  OwnershipLostError,
  VersionConflictError,
  type Ownership,
  type SourceHead,
  type StoredInboxItem,
} from '../persistence/index.js';
import { planKeys, setAsidePlan, type InboxPlan, type PlanRules } from './inbox-plan.js';
import type {
  AcquiredSource,
  CheckpointRequest,
  CheckpointResult,
  ConversationActor,
  HeartbeatCommand,
  LoadedConversation,
  NextStep,
  QuarantineInput,
  RelayWatch,
  SourceContext,
  SourceEvent,
  SourceInput,
} from './source-types.js';

/** The conversation an event is for: every state that talks to it has one. */
export function liveConversation({ context }: { context: SourceContext }): ConversationActor {
  if (!context.conversation) throw new Error(`source ${context.sourceId} has no live conversation`);
  return context.conversation;
}

/** The error of an `onError` event, read by the guards that judge a failed write. */
function errorOf(event: unknown): unknown {
  return (event as { error?: unknown }).error;
}

function notProvided(name: string) {
  return () => Promise.reject(new Error(`the "${name}" actor was not provided; use provideSourceServices()`));
}

const noop = () => undefined;

/**
 * The source machine's typed setup: the services it invokes (provided by the host,
 * `provideSourceServices`), its guards, actions and delays. The chart is source-machine.ts.
 */
export const sourceSetup = setup({
  types: {
    context: {} as SourceContext,
    events: {} as SourceEvent,
    input: {} as SourceInput,
  },
  actors: {
    /** Takes the source when its owner is gone (or it has none); undefined when a live owner has it. */
    acquire: fromPromise<AcquiredSource | undefined, { sourceId: string }>(notProvided('acquire')),
    /** Renews the lease under our fence; resolves with the heartbeat time it wrote. */
    renew: fromPromise<number, { ownership: Ownership }>(notProvided('renew')),
    /**
     * Head, history window and profiles; the conversation actor restored from them (not started).
     * With `ownership`: a turn its process left in progress is counted (durably) before it goes on.
     * `setAsideTurn`: why that turn is set aside instead (`turnSetAside` in the output).
     */
    load: fromPromise<LoadedConversation, { sourceId: string; ownership?: Ownership; setAsideTurn?: string }>(
      notProvided('load'),
    ),
    readInbox: fromPromise<StoredInboxItem[], { sourceId: string; limit: number }>(notProvided('readInbox')),
    /**
     * Reads the inbox and plans the next step from it (`planInbox`); a turn that fits in the
     * host's time is prepared too: an attempt counted on each of its inbox items (when the host
     * counts them), its messages completed (display names, looked up and cached when unknown).
     */
    planNext: fromPromise<
      NextStep,
      {
        ownership: Ownership;
        replay: readonly InboundMessage[];
        rules: PlanRules;
        mergeFrom: string | undefined;
        profiles: ReadonlyMap<string, KnownProfile>;
        turnsHeld: number;
      }
    >(notProvided('planNext')),
    checkpoint: fromPromise<CheckpointResult, CheckpointRequest>(notProvided('checkpoint')),
    /** A turn's closing checkpoint that also releases when the inbox is then empty (`closeTurn`). */
    closeTurn: fromPromise<CheckpointResult & { released: boolean }, CheckpointRequest>(
      notProvided('closeTurn'),
    ),
    /**
     * Tells the user a message was set aside (and logs it), and records it in the conversation
     * (its last turn); the checkpoint after it consumes the message.
     */
    quarantine: fromPromise<void, QuarantineInput>(notProvided('quarantine')),
    /** Deletes what was accepted up to the unfollow or leave, and cancels the source's reminders. */
    forget: fromPromise<void, { ownership: Ownership; key: string; event: ForgetEvent }>(
      notProvided('forget'),
    ),
    /** Gives the source up (nothing when it is not held). */
    release: fromPromise<void, { ownership: Ownership | undefined }>(notProvided('release')),
    /**
     * Lives as long as the source: renews the lease it is told to hold (`hold` on entering
     * `owned`, `drop` on leaving it) and sends `ownership.lost` when the fence moved on.
     */
    heartbeat: fromCallback<HeartbeatCommand>(noop),
    /**
     * Lives as long as the source: relays what the conversation it watches announces
     * (`actor.on`) as this machine's events; the host hears turn starts from it directly.
     */
    conversationEvents: fromCallback<RelayWatch>(noop),
  },
  delays: {
    retry: 1000,
    standBy: defaults.host.leaseMs,
    idleEviction: defaults.host.idleEvictionMs,
  },
  guards: {
    acquired: (_, params: { ownership: Ownership | undefined }) => params.ownership !== undefined,
    /** Nobody wrote since our conversation was last durable: it is still the truth. */
    loadedAndCurrent: ({ context }, params: { ownership: Ownership | undefined }) =>
      context.conversation !== undefined && params.ownership?.version === context.version,
    /** As `loadedAndCurrent`, with the conversation idle: the inbox is all there is to look at. */
    loadedIdleAndCurrent: ({ context }, params: { ownership: Ownership | undefined }) =>
      context.conversation !== undefined &&
      params.ownership?.version === context.version &&
      context.conversation.getSnapshot().matches('idle'),
    awaitsCheckpoint: ({ context }) =>
      context.conversation?.getSnapshot().hasTag(AWAITING_CHECKPOINT_TAG) === true,
    conversationIdle: ({ context }) => context.conversation?.getSnapshot().matches('idle') !== false,
    planIs: (_, params: { plan: InboxPlan; kind: InboxPlan['kind'] }) => params.plan.kind === params.kind,
    /** An unfollow or leave under the `keep` retention policy: nothing is deleted. */
    forgetButKeep: ({ context }, params: { plan: InboxPlan }) =>
      params.plan.kind === 'forget' && context.forgetPolicy === 'keep',
    // Of a write's error event (`onError`): another owner took the source, or another write won.
    ownershipLost: ({ event }) => OwnershipLostError.isInstance(errorOf(event)),
    versionConflict: ({ event }) => VersionConflictError.isInstance(errorOf(event)),
    /** The turn's message was taken back by its sender while the turn ran: nothing was written. */
    messageTakenBack: ({ event }) => MessageTakenBackError.isInstance(errorOf(event)),
    /** The checkpoint holds more than the store can ever write: the same write would fail forever. */
    checkpointNeverFits: ({ event }) => ItemTooLargeError.isInstance(errorOf(event)),
    /** The conversation failed in this turn as often as it may: running it again would too. */
    turnKeepsFailing: ({ context }) => context.turnFailures >= defaults.host.maxTurnFailures,
    /** The reloaded head is still under our fence: what it holds was written by us. */
    headStillOurs: ({ context }, params: { head: SourceHead | undefined }) =>
      params.head?.fence === context.ownership?.fence &&
      params.head?.owner?.ownerId === context.ownership?.ownerId,
    /** The reloaded head was released under our fence: our closing checkpoint went through. */
    releasedByUs: ({ context }, params: { head: SourceHead | undefined }) =>
      params.head !== undefined &&
      params.head.fence === context.ownership?.fence &&
      params.head.owner === undefined,
    hasWork: (_, params: { items: readonly StoredInboxItem[] }) => params.items.length > 0,
    /** The load set aside the turn its head held in progress. */
    turnSetAside: (_, params: { loaded: LoadedConversation }) => params.loaded.turnSetAside,
    /** The inbox's first item is a message to set aside (`setAsidePlan`). */
    messageToSetAside: (_, params: { items: readonly StoredInboxItem[] }) =>
      setAsidePlan(params.items) !== undefined,
    /** Nothing waits: no inbox item, nothing to replay, and the conversation is idle. */
    drained: ({ context }, params: { items: readonly StoredInboxItem[] }) =>
      params.items.length === 0 &&
      context.replay.length === 0 &&
      context.conversation?.getSnapshot().matches('idle') !== false,
    /** A turn the planning left unprepared: its deadline would not fit in the host's time. */
    turnUnprepared: (_, params: NextStep) => params.plan.kind === 'turn' && params.prepared === undefined,
    givesWay: (_, params: NextStep) => params.givesWay === true,
    /**
     * The store can release in the turn's closing write when the inbox is empty (`closeTurn`),
     * and nothing waits to replay: no inbox read before that write or after it.
     */
    closesTurnInOneWrite: (_context: { context: SourceContext }) => false,
    released: (_, params: { released: boolean }) => params.released,
    /** Released, but `work.available` arrived while the write ran: take the source again. */
    releasedWithWorkAnnounced: ({ context }, params: { released: boolean }) =>
      params.released && context.workAnnounced,
    /**
     * The lease stays ours, as the store judges it, for at least the side effect's own timeout
     * from now (`leaseFrom + leaseMs - margin > now`); provided by the host, which knows both.
     */
    leaseCoversSideEffect: (_context: { context: SourceContext }) => true,
  },
  actions: {
    startConversation: ({ context }) => context.conversation?.start(),
    /** Points the relay at the conversation in context (before it starts: it may announce at once). */
    watchConversation: sendTo('relay', ({ context }): RelayWatch => ({
      type: 'watch',
      conversation: context.conversation,
    })),
    holdLease: sendTo('heartbeat', ({ context }): HeartbeatCommand => ({
      type: 'hold',
      ownership: context.ownership!,
    })),
    dropLease: sendTo('heartbeat', { type: 'drop' } satisfies HeartbeatCommand),
    /** What a checkpoint made durable; `released`: it gave the source up too. */
    recordCheckpoint: assign(({ context }, params: { result: CheckpointResult; released?: boolean }) => ({
      ...afterCheckpoint(context, params.result),
      ...(params.released && { ownership: undefined }),
    })),
    /** One more failure in a row: the next retry waits longer (`retry`). */
    countFailure: assign({ failures: ({ context }) => context.failures + 1 }),
    countTurnFailure: assign({ turnFailures: ({ context }) => context.turnFailures + 1 }),
    /** A turn ended, or was set aside: the next one starts with a clean record. */
    clearTurnFailures: assign({ turnFailures: 0 }),
    /** A loaded conversation becomes the source's, with the version and seq it was stored at. */
    takeLoaded: assign((_, loaded: LoadedConversation) => ({
      conversation: loaded.conversation,
      version: loaded.head?.version ?? 0,
      savedSeq: loaded.head?.lastSeq ?? 0,
      replay: loaded.replay,
      profiles: loaded.profiles,
      consumedKeys: [],
      removedSeqs: [],
      failures: 0,
    })),
    /** The inbox's first message becomes the plan: set aside (`quarantining`), not answered. */
    planSetAside: assign((_, params: { items: readonly StoredInboxItem[] }) => ({
      plan: setAsidePlan(params.items) ?? { kind: 'none' as const },
    })),
    /** The plan's inbox keys go with the next checkpoint. */
    consumePlan: assign(({ context }) => ({
      consumedKeys: [...context.consumedKeys, ...planKeys(context.plan)],
    })),
    /** The inbox's next step becomes the plan. */
    takePlan: assign((_, params: NextStep) => ({
      plan: params.plan,
      mergeFrom: params.mergeFrom,
      failures: 0,
    })),
    /** Stops the conversation: its children are aborted, so no delivery or tool starts after this. */
    stopConversation: ({ context }) => context.conversation?.stop(),
    // sendTo, not `conversation.send` in a custom action: the conversation handles the event
    // after this step, never inside it (XState forbids action creators inside custom actions).
    feedTurn: sendTo(
      liveConversation,
      (_, params: { messages: readonly InboundMessage[]; at: number }): ConversationEvent => ({
        type: 'line.messages',
        messages: params.messages,
        at: params.at,
      }),
    ),
    answerCheckpoint: sendTo(liveConversation, (_, params: { resumed: boolean }): ConversationEvent => ({
      type: 'checkpoint.done',
      resumed: params.resumed,
    })),
    /** The plan's unsend reaches the conversation, which drops the message from history. */
    sendUnsend: sendTo(liveConversation, ({ context }): ConversationEvent => {
      if (context.plan.kind !== 'unsend') throw new Error('unsending without an unsend plan');
      const { messageId, at, storedSeqs, waitingKey, markedOnly } = context.plan;
      // Stored beyond the window in memory, or waiting in the inbox (consumed with the unsend):
      // either way not a message still to come, which the conversation would remember.
      const foundElsewhere = (storedSeqs?.length ?? 0) > 0 || waitingKey !== undefined || markedOnly === true;
      return { type: 'line.unsend', messageId, at, foundElsewhere };
    }),
    // Provided by the host: the loading animation and the logs.
    turnEnded: noop,
    /** A turn was cut off (the source was lost or the process stops): its listeners hear the end. */
    turnAbandoned: noop,
    logFailure: noop,
    logUnstorable: noop,
    logLost: noop,
    logTakenBack: noop,
    /** The plan's unreadable inbox item is logged and recorded as the conversation's last turn. */
    setAsideUnreadable: noop,
  },
});

/** What is durable now: the new version and seq; the keys and seqs it wrote leave the to-do lists. */
function afterCheckpoint(context: SourceContext, result: CheckpointResult): Partial<SourceContext> {
  return {
    version: result.version,
    savedSeq: result.savedSeq,
    consumedKeys: context.consumedKeys.filter((key) => !result.consumedKeys.includes(key)),
    removedSeqs: context.removedSeqs.filter((seq) => !result.removedSeqs.includes(seq)),
    failures: 0,
  };
}
