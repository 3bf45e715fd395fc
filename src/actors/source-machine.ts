import { and, assign, fromCallback, fromPromise, sendTo, setup, type Actor } from 'xstate';
import { defaults } from '../defaults/index.js';
import type { ForgetEvent, InboundMessage, JsonObject } from '../domain/index.js';
import {
  AWAITING_CHECKPOINT_TAG,
  type ConversationEvent,
  type ConversationMachine,
  type KnownProfile,
  type StopReason,
} from '../machines/index.js';
import {
  OwnershipLostError,
  VersionConflictError,
  type HistoryRecord,
  type Ownership,
  type SourceHead,
  type StoredInboxItem,
} from '../persistence/index.js';
import type { InboxPlan, PlanRules } from './inbox-plan.js';
import { encodeConversation } from './snapshot-codec.js';

export type ConversationActor = Actor<ConversationMachine>;

/** The conversation an event is for: every state that talks to it has one. */
function liveConversation({ context }: { context: SourceContext }): ConversationActor {
  if (!context.conversation) throw new Error(`source ${context.sourceId} has no live conversation`);
  return context.conversation;
}

/** The source's tag for states in which it needs nothing from its host (for `whenSettled`). */
export const SETTLED_TAG = 'settled';

export interface SourceInput {
  readonly sourceId: string;
  readonly rules: PlanRules;
  /** Unfollow and leave: `delete` the source's data, or `keep` it and only consume the event. */
  readonly forgetPolicy: 'delete' | 'keep';
}

/** A conversation loaded from the store, ready to start. */
export interface LoadedConversation {
  readonly conversation: ConversationActor;
  readonly head: SourceHead | undefined;
  readonly replay: readonly InboundMessage[];
  readonly profiles: ReadonlyMap<string, KnownProfile>;
}

/** A turn's messages, completed (display names) and stamped with the time the turn starts. */
export interface PreparedTurn {
  readonly messages: readonly InboundMessage[];
  readonly at: number;
  readonly profiles: ReadonlyMap<string, KnownProfile>;
}

/** One checkpoint as the source machine hands it to the store. */
export interface CheckpointRequest {
  readonly ownership: Ownership;
  readonly expectedVersion: number;
  readonly snapshot: JsonObject;
  readonly busy: boolean;
  readonly appended: readonly HistoryRecord[];
  readonly removedSeqs: readonly number[];
  readonly consumedKeys: readonly string[];
  readonly lastSeq: number;
  /** Why: the intent of a side effect, or the state at the end of a step. */
  readonly reason: 'intent' | 'step';
  /** Give the source up in the same write: the turn ended and the inbox was found empty. */
  readonly release: boolean;
}

/** A source taken: its ownership, and the heartbeat time the take wrote (its lease starts there). */
export interface AcquiredSource {
  readonly ownership: Ownership;
  readonly leaseFrom: number;
}

export interface QuarantineInput {
  readonly sourceId: string;
  readonly message: InboundMessage;
  readonly conversation: ConversationActor;
}

export interface CheckpointResult {
  readonly version: number;
  readonly savedSeq: number;
  readonly consumedKeys: readonly string[];
  readonly removedSeqs: readonly number[];
}

export interface SourceContext {
  readonly sourceId: string;
  readonly rules: PlanRules;
  readonly forgetPolicy: 'delete' | 'keep';
  /** The live conversation: undefined until loaded, and again after a loss or a forget. */
  readonly conversation: ConversationActor | undefined;
  /** Present while this process owns the source: every write carries its fence. */
  readonly ownership: Ownership | undefined;
  /**
   * The heartbeat time of our last successful acquire or renew (this host's clock): the lease
   * is ours until `leaseFrom + leaseMs`, as the store judges it.
   */
  readonly leaseFrom: number;
  /** The head version the conversation was last durable at. */
  readonly version: number;
  /** The highest `seq` durable in the store. */
  readonly savedSeq: number;
  /** Inbox items the conversation took in, consumed by the next checkpoint. */
  readonly consumedKeys: readonly string[];
  /** Entries an unsend removed, deleted by the next checkpoint. */
  readonly removedSeqs: readonly number[];
  /** Messages a migrated snapshot left to run again, before the inbox. */
  readonly replay: readonly InboundMessage[];
  /** The next step, decided from the inbox. */
  readonly plan: InboxPlan;
  /** Where the turn that merges the newest queued messages starts (the queue cap). */
  readonly mergeFrom: string | undefined;
  /** Display names known for this source (the store's profile items, cached). */
  readonly profiles: ReadonlyMap<string, KnownProfile>;
  /** Failures in a row, for the backoff; 0 after any success. */
  readonly failures: number;
  /** `work.available` arrived during the turn's closing write (it may have released anyway). */
  readonly workAnnounced: boolean;
}

export type SourceEvent =
  /**
   * "This source has work": the inbox says what. With `ownership` when the accept itself took
   * the idle source (`acceptAndAcquire`): no `acquire` write follows.
   */
  | { type: 'work.available'; ownership?: Ownership; leaseFrom?: number }
  /** Drop the idle source from memory (its state is durable). */
  | { type: 'evict' }
  /** The process stops: stop the conversation (no further side effect) and release the source. */
  | { type: 'shutdown' }
  | { type: 'ownership.lost'; error: unknown }
  /** A heartbeat renewed the lease: it runs from `at`. */
  | { type: 'lease.renewed'; at: number }
  | { type: 'conversation.turnEnded'; turnId: string; outcome: StopReason | 'quiet' }
  | { type: 'conversation.checkpointNeeded'; turnId: string; reason: 'tool' | 'delivery' }
  | { type: 'conversation.historyRemoved'; seqs: readonly number[] }
  /** The conversation actor threw (a bug): it is dropped and loaded again from its last checkpoint. */
  | { type: 'conversation.failed'; error: unknown };

/** What the relay is told: the conversation to relay from now on (none after a loss). */
export interface RelayWatch {
  readonly type: 'watch';
  readonly conversation: ConversationActor | undefined;
}

/** What the heartbeat is told: hold this ownership's lease (renew it now and then), or stop. */
export type HeartbeatCommand =
  { readonly type: 'hold'; readonly ownership: Ownership } | { readonly type: 'drop' };

/** The next step the inbox calls for, and where a merged turn starts (`planInbox`). */
export interface NextStep {
  readonly plan: InboxPlan;
  readonly mergeFrom: string | undefined;
  /** A turn, prepared; absent when the turn does not fit in the host's time (it is left waiting). */
  readonly prepared?: PreparedTurn;
}

/** A transition out of `reading` for a plan of this kind: the plan is taken into context. */
function onPlan(kind: InboxPlan['kind'], target: string) {
  const output = ({ event }: { event: { output: NextStep } }) => event.output;
  return {
    guard: {
      type: 'planIs' as const,
      params: ({ event }: { event: { output: NextStep } }) => ({ plan: event.output.plan, kind }),
    },
    target,
    actions: { type: 'takePlan' as const, params: output },
  };
}

/**
 * A fenced write failed (`onError`): another owner has the source (stop: `lost`), or it failed
 * on its own (count, log, and go to `retry`, which backs off). A checkpoint's write may also
 * lose its version to another write (`conflict`: reload and go on from what is durable).
 */
function writeFailed(retry: string, options: { reloadOnConflict?: boolean } = {}) {
  return [
    { guard: 'ownershipLost' as const, target: '#source.owned.lost' },
    ...(options.reloadOnConflict
      ? [
          {
            guard: 'versionConflict' as const,
            target: '#source.owned.conflict',
            actions: 'logFailure' as const,
          },
        ]
      : []),
    { target: retry, actions: ['countFailure' as const, 'logFailure' as const] },
  ];
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
 * The lifecycle of one LINE source in this process (docs/runtime.md, "Ownership"): it takes
 * the source (a lease with a fence), loads the head and the history window, feeds the inbox
 * to the conversation in order, writes a checkpoint whenever a side effect waits or a step
 * ends, releases the source once the inbox is empty — and reads the inbox once more, so a
 * message accepted meanwhile is never stranded. A host that lost the source stops before its
 * next side effect; a version conflict reloads and resumes only a head it still owns.
 */
const sourceSetup = setup({
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
    /** Head, history window and profiles; the conversation actor restored from them (not started). */
    /** With `ownership`: a turn its process left in progress is counted (durably) before it goes on. */
    load: fromPromise<LoadedConversation, { sourceId: string; ownership?: Ownership }>(notProvided('load')),
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
      }
    >(notProvided('planNext')),
    checkpoint: fromPromise<CheckpointResult, CheckpointRequest>(notProvided('checkpoint')),
    /** A turn's closing checkpoint that also releases when the inbox is then empty (`closeTurn`). */
    closeTurn: fromPromise<CheckpointResult & { released: boolean }, CheckpointRequest>(
      notProvided('closeTurn'),
    ),
    /** Tells the user that a message was set aside (and logs it); it is consumed afterwards. */
    /** Tells the user a message was set aside, and records it in the conversation (its last turn). */
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
    /** Nothing waits: no inbox item, nothing to replay, and the conversation is idle. */
    drained: ({ context }, params: { items: readonly StoredInboxItem[] }) =>
      params.items.length === 0 &&
      context.replay.length === 0 &&
      context.conversation?.getSnapshot().matches('idle') !== false,
    /** A turn the planning left unprepared: its deadline would not fit in the host's time. */
    turnUnprepared: (_, params: NextStep) => params.plan.kind === 'turn' && params.prepared === undefined,
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
      return { type: 'line.unsend', messageId: context.plan.messageId };
    }),
    // Provided by the host: the loading animation and the logs.
    turnEnded: noop,
    /** A turn was cut off (the source was lost or the process stops): its listeners hear the end. */
    turnAbandoned: noop,
    logFailure: noop,
    logLost: noop,
  },
});

/**
 * Before a side effect whose intent is durable (docs/runtime.md, "Ownership"): it starts only
 * while the lease stays ours for its whole timeout. A lease with less room left (a slow intent
 * write, starved heartbeats) is renewed first under our fence; a renew refused because the fence
 * moved on means another process owns the source and may be delivering this very intent: this
 * one stops. `resumed`: the intent was loaded with the conversation, not written by this turn.
 */
function securingSideEffect(resumed: boolean) {
  return sourceSetup.createStateConfig({
    initial: 'checking',
    states: {
      checking: {
        always: [
          {
            guard: 'leaseCoversSideEffect',
            target: '#source.owned.active.turn',
            actions: { type: 'answerCheckpoint', params: { resumed } },
          },
          { target: 'renewing' },
        ],
      },
      renewing: {
        invoke: {
          src: 'renew',
          input: ({ context }) => ({ ownership: context.ownership! }),
          onDone: {
            target: 'checking',
            actions: assign(({ event }) => ({ leaseFrom: event.output, failures: 0 })),
          },
          onError: writeFailed('waiting'),
        },
      },
      waiting: { after: { retry: 'renewing' } },
    },
  });
}

export const sourceMachine = sourceSetup.createMachine({
  id: 'source',
  context: ({ input }) => ({
    sourceId: input.sourceId,
    rules: input.rules,
    forgetPolicy: input.forgetPolicy,
    conversation: undefined,
    ownership: undefined,
    leaseFrom: 0,
    version: 0,
    savedSeq: 0,
    consumedKeys: [],
    removedSeqs: [],
    replay: [],
    plan: { kind: 'none' },
    mergeFrom: undefined,
    profiles: new Map(),
    failures: 0,
    workAnnounced: false,
  }),
  // Both live as long as the source: started once, not per turn.
  invoke: [
    { id: 'relay', src: 'conversationEvents' },
    { id: 'heartbeat', src: 'heartbeat' },
  ],
  on: {
    shutdown: '.stopping',
  },
  initial: 'idle',
  states: {
    // Not owned here; the conversation, if loaded, is idle and durable.
    idle: {
      tags: [SETTLED_TAG],
      on: {
        'work.available': [
          {
            // The common case: the conversation in memory is current and idle; read the inbox.
            guard: { type: 'loadedIdleAndCurrent', params: ({ event }) => ({ ownership: event.ownership }) },
            target: '#source.owned.active.reading',
            actions: assign({
              ownership: ({ event }) => event.ownership,
              leaseFrom: ({ event }) => event.leaseFrom ?? 0,
              failures: 0,
            }),
          },
          {
            guard: { type: 'loadedAndCurrent', params: ({ event }) => ({ ownership: event.ownership }) },
            target: 'owned.active',
            actions: assign({
              ownership: ({ event }) => event.ownership,
              leaseFrom: ({ event }) => event.leaseFrom ?? 0,
              failures: 0,
            }),
          },
          {
            guard: { type: 'acquired', params: ({ event }) => ({ ownership: event.ownership }) },
            target: 'owned',
            actions: assign({
              ownership: ({ event }) => event.ownership,
              leaseFrom: ({ event }) => event.leaseFrom ?? 0,
              failures: 0,
            }),
          },
          { target: 'acquiring' },
        ],
        evict: 'evicted',
      },
      after: { idleEviction: 'evicted' },
    },
    acquiring: {
      invoke: {
        src: 'acquire',
        input: ({ context }) => ({ sourceId: context.sourceId }),
        onDone: [
          {
            // Taken again and nobody wrote meanwhile: the conversation in memory is current.
            guard: {
              type: 'loadedAndCurrent',
              params: ({ event }) => ({ ownership: event.output?.ownership }),
            },
            target: 'owned.active',
            actions: assign(({ event }) => ({ ...event.output!, failures: 0 })),
          },
          {
            guard: { type: 'acquired', params: ({ event }) => ({ ownership: event.output?.ownership }) },
            target: 'owned',
            actions: assign(({ event }) => ({ ...event.output!, failures: 0 })),
          },
          { target: 'standingBy', actions: assign({ failures: 0 }) },
        ],
        onError: {
          target: 'retryingAcquire',
          actions: ['countFailure', 'logFailure'],
        },
      },
    },
    retryingAcquire: { after: { retry: 'acquiring' } },
    // A live owner elsewhere drains the inbox (and reads it again after releasing); look again
    // once its lease could have run out, in case it died.
    standingBy: {
      tags: [SETTLED_TAG],
      after: { standBy: 'acquiring' },
      on: { evict: 'evicted' },
    },
    owned: {
      entry: 'holdLease',
      exit: 'dropLease',
      on: {
        'ownership.lost': '.lost',
        'lease.renewed': {
          actions: assign({ leaseFrom: ({ context, event }) => Math.max(context.leaseFrom, event.at) }),
        },
      },
      initial: 'loading',
      states: {
        loading: {
          initial: 'reading',
          states: {
            reading: {
              invoke: {
                src: 'load',
                input: ({ context }) => ({ sourceId: context.sourceId, ownership: context.ownership! }),
                onDone: {
                  target: '#source.owned.active',
                  actions: [
                    'stopConversation',
                    assign(({ event }) => ({
                      conversation: event.output.conversation,
                      version: event.output.head?.version ?? 0,
                      savedSeq: event.output.head?.lastSeq ?? 0,
                      replay: event.output.replay,
                      profiles: event.output.profiles,
                      consumedKeys: [],
                      removedSeqs: [],
                      failures: 0,
                    })),
                    'watchConversation',
                    'startConversation',
                  ],
                },
                // Counting a resumed turn is a fenced write too: another owner may have the source.
                onError: writeFailed('waiting'),
              },
            },
            waiting: { after: { retry: 'reading' } },
          },
        },
        active: {
          on: {
            'conversation.failed': {
              target: 'failed',
              actions: ['countFailure', 'logFailure'],
            },
          },
          initial: 'resuming',
          states: {
            // A conversation restored while its side effect waited for a checkpoint: that intent
            // is durable (it was loaded), so the side effect goes on — as resumed.
            resuming: {
              always: [
                { guard: 'awaitsCheckpoint', target: 'securingResumed' },
                { guard: 'conversationIdle', target: 'reading' },
                { target: 'turn' },
              ],
            },
            securing: securingSideEffect(false),
            // The same for an intent that was loaded (resumed), not written.
            securingResumed: securingSideEffect(true),
            reading: {
              initial: 'fetching',
              states: {
                fetching: {
                  invoke: {
                    src: 'planNext',
                    input: ({ context }) => ({
                      ownership: context.ownership!,
                      replay: context.replay,
                      rules: context.rules,
                      mergeFrom: context.mergeFrom,
                      profiles: context.profiles,
                    }),
                    onDone: [
                      {
                        // Out of time for a whole turn: leave it to the next drain rather than cut it off.
                        guard: { type: 'turnUnprepared', params: ({ event }) => event.output },
                        target: '#source.yielding',
                        actions: { type: 'takePlan', params: ({ event }) => event.output },
                      },
                      {
                        guard: {
                          type: 'planIs',
                          params: ({ event }) => ({ plan: event.output.plan, kind: 'turn' }),
                        },
                        target: '#source.owned.active.turn',
                        actions: [
                          { type: 'takePlan', params: ({ event }) => event.output },
                          assign(({ context, event }) => {
                            const plan = context.plan;
                            const replayed = plan.kind === 'turn' ? plan.replayed : 0;
                            return {
                              profiles: event.output.prepared!.profiles,
                              replay: context.replay.slice(replayed),
                              consumedKeys: [...context.consumedKeys, ...keysOf(plan)],
                            };
                          }),
                          { type: 'feedTurn', params: ({ event }) => event.output.prepared! },
                        ],
                      },
                      onPlan('unsend', '#source.owned.active.unsending'),
                      onPlan('quarantine', '#source.owned.active.quarantining'),
                      {
                        // Retention says keep: the unfollow is only consumed.
                        guard: {
                          type: 'forgetButKeep',
                          params: ({ event }) => ({ plan: event.output.plan }),
                        },
                        target: '#source.owned.active.checkpointing',
                        actions: [
                          { type: 'takePlan', params: ({ event }) => event.output },
                          assign(({ context }) => ({
                            consumedKeys: [...context.consumedKeys, ...keysOf(context.plan)],
                          })),
                        ],
                      },
                      onPlan('forget', '#source.owned.active.forgetting'),
                      {
                        target: '#source.releasing',
                        actions: { type: 'takePlan', params: ({ event }) => event.output },
                      },
                    ],
                    onError: {
                      target: 'waiting',
                      actions: ['countFailure', 'logFailure'],
                    },
                  },
                },
                waiting: { after: { retry: 'fetching' } },
              },
            },
            // The conversation runs its turn; it asks for a checkpoint before each side effect.
            turn: {
              on: {
                'conversation.checkpointNeeded': 'checkpointing',
                'conversation.turnEnded': [
                  { guard: 'closesTurnInOneWrite', target: 'closingTurn', actions: 'turnEnded' },
                  { target: 'settling', actions: 'turnEnded' },
                ],
              },
            },
            // The turn ended: when the inbox is empty, its checkpoint also releases the source
            // (one write instead of two; `rechecking` then reads the inbox once more, as after
            // `releasing`). Otherwise it is written as any step and the inbox is read again.
            settling: {
              invoke: {
                src: 'readInbox',
                input: ({ context }) => ({ sourceId: context.sourceId, limit: 1 }),
                onDone: [
                  {
                    guard: { type: 'drained', params: ({ event }) => ({ items: event.output }) },
                    target: 'closing',
                  },
                  { target: 'checkpointing' },
                ],
                onError: { target: 'checkpointing' },
              },
            },
            // One write: the turn's checkpoint, releasing the source when its inbox is then empty.
            // Work announced meanwhile was accepted while we still owned the source (it was left
            // to us): if the write released anyway, the source is taken again.
            closingTurn: {
              entry: assign({ workAnnounced: false }),
              on: { 'work.available': { actions: assign({ workAnnounced: true }) } },
              initial: 'saving',
              states: {
                saving: {
                  invoke: {
                    src: 'closeTurn',
                    input: ({ context }) => checkpointRequest(context),
                    onDone: [
                      {
                        // Released, but work announced while the write ran can be waiting.
                        guard: {
                          type: 'releasedWithWorkAnnounced',
                          params: ({ event }) => ({ released: event.output.released }),
                        },
                        target: '#source.acquiring',
                        actions: {
                          type: 'recordCheckpoint',
                          params: ({ event }) => ({ result: event.output, released: true }),
                        },
                      },
                      {
                        guard: {
                          type: 'released',
                          params: ({ event }) => ({ released: event.output.released }),
                        },
                        target: '#source.idle',
                        actions: {
                          type: 'recordCheckpoint',
                          params: ({ event }) => ({ result: event.output, released: true }),
                        },
                      },
                      {
                        target: '#source.owned.active.reading',
                        actions: {
                          type: 'recordCheckpoint',
                          params: ({ event }) => ({ result: event.output }),
                        },
                      },
                    ],
                    onError: writeFailed('waiting', { reloadOnConflict: true }),
                  },
                },
                waiting: { after: { retry: 'saving' } },
              },
            },
            closing: {
              initial: 'saving',
              states: {
                saving: {
                  invoke: {
                    src: 'checkpoint',
                    input: ({ context }) => ({ ...checkpointRequest(context), release: true }),
                    onDone: {
                      target: '#source.rechecking',
                      actions: {
                        type: 'recordCheckpoint',
                        params: ({ event }) => ({ result: event.output, released: true }),
                      },
                    },
                    onError: writeFailed('waiting', { reloadOnConflict: true }),
                  },
                },
                waiting: { after: { retry: 'saving' } },
              },
            },
            unsending: {
              entry: 'sendUnsend',
              on: {
                'conversation.historyRemoved': {
                  target: 'checkpointing',
                  actions: assign(({ context, event }) => ({
                    removedSeqs: [
                      ...context.removedSeqs,
                      ...event.seqs.filter((seq) => seq <= context.savedSeq),
                    ],
                    consumedKeys: [...context.consumedKeys, ...keysOf(context.plan)],
                  })),
                },
              },
            },
            // Poison: the notice goes out, then the checkpoint consumes the message and stores
            // the conversation's record of it.
            quarantining: {
              invoke: {
                src: 'quarantine',
                input: ({ context }) => {
                  if (context.plan.kind !== 'quarantine') throw new Error('quarantining without a plan');
                  return {
                    sourceId: context.sourceId,
                    message: context.plan.message,
                    conversation: liveConversation({ context }),
                  };
                },
                onDone: {
                  target: 'checkpointing',
                  actions: assign(({ context }) => ({
                    consumedKeys: [...context.consumedKeys, ...keysOf(context.plan)],
                  })),
                },
                onError: {
                  target: 'reading',
                  actions: ['countFailure', 'logFailure'],
                },
              },
            },
            forgetting: {
              invoke: {
                src: 'forget',
                input: ({ context }) => {
                  if (context.plan.kind !== 'forget') throw new Error('forgetting without a forget plan');
                  return { ownership: context.ownership!, key: context.plan.key, event: context.plan.event };
                },
                // The conversation starts again from nothing; what came after the unfollow runs.
                onDone: { target: '#source.owned.loading', actions: assign({ failures: 0 }) },
                onError: writeFailed('reading'),
              },
            },
            checkpointing: {
              initial: 'saving',
              states: {
                saving: {
                  invoke: {
                    src: 'checkpoint',
                    input: ({ context }) => checkpointRequest(context),
                    onDone: [
                      {
                        // The side effect that waited goes now: the lease covers it (`securing`).
                        guard: and(['awaitsCheckpoint', 'leaseCoversSideEffect']),
                        target: '#source.owned.active.turn',
                        actions: [
                          { type: 'recordCheckpoint', params: ({ event }) => ({ result: event.output }) },
                          { type: 'answerCheckpoint', params: { resumed: false } },
                        ],
                      },
                      {
                        // The lease must be renewed first.
                        guard: 'awaitsCheckpoint',
                        target: '#source.owned.active.securing.renewing',
                        actions: {
                          type: 'recordCheckpoint',
                          params: ({ event }) => ({ result: event.output }),
                        },
                      },
                      {
                        target: '#source.owned.active.reading',
                        actions: {
                          type: 'recordCheckpoint',
                          params: ({ event }) => ({ result: event.output }),
                        },
                      },
                    ],
                    onError: writeFailed('waiting', { reloadOnConflict: true }),
                  },
                },
                waiting: { after: { retry: 'saving' } },
              },
            },
          },
        },
        // The conversation actor failed: drop it and load the source again from its last
        // checkpoint (what it did since then runs again), after a growing pause.
        failed: {
          entry: ['turnAbandoned', 'stopConversation'],
          after: { retry: 'loading' },
        },
        // Another writer got there first. Reload: a head still under our fence is what we wrote
        // (a write that succeeded although its answer was lost) and is resumed; any other head
        // belongs to a new owner — whatever it is delivering, this process never resumes it.
        conflict: {
          entry: 'stopConversation',
          invoke: {
            src: 'load',
            input: ({ context }) => ({ sourceId: context.sourceId }),
            onDone: [
              {
                // Nobody took the source since (a take moves the fence): it is durable and free;
                // read the inbox once more, as after any release.
                guard: { type: 'releasedByUs', params: ({ event }) => ({ head: event.output.head }) },
                target: '#source.rechecking',
                actions: [
                  assign(({ event }) => ({
                    conversation: event.output.conversation,
                    ownership: undefined,
                    version: event.output.head?.version ?? 0,
                    savedSeq: event.output.head?.lastSeq ?? 0,
                    replay: event.output.replay,
                    profiles: event.output.profiles,
                    consumedKeys: [],
                    removedSeqs: [],
                  })),
                  'watchConversation',
                  'startConversation',
                ],
              },
              {
                guard: { type: 'headStillOurs', params: ({ event }) => ({ head: event.output.head }) },
                target: 'active',
                actions: [
                  assign(({ event }) => ({
                    conversation: event.output.conversation,
                    version: event.output.head?.version ?? 0,
                    savedSeq: event.output.head?.lastSeq ?? 0,
                    replay: event.output.replay,
                    profiles: event.output.profiles,
                    consumedKeys: [],
                    removedSeqs: [],
                  })),
                  'watchConversation',
                  'startConversation',
                ],
              },
              { target: 'lost' },
            ],
            onError: { target: 'lost', actions: 'logFailure' },
          },
        },
        // Another process owns the source now: stop before the next side effect, forget the
        // conversation (the new owner's head is the truth) and leave the inbox to it.
        lost: {
          entry: ['logLost', 'turnAbandoned', 'stopConversation'],
          always: {
            target: '#source.idle',
            actions: [
              assign({
                conversation: undefined,
                ownership: undefined,
                consumedKeys: [],
                removedSeqs: [],
                mergeFrom: undefined,
              }),
              'watchConversation',
            ],
          },
        },
      },
    },
    releasing: {
      invoke: {
        src: 'release',
        input: ({ context }) => ({ ownership: context.ownership }),
        onDone: { target: 'rechecking', actions: assign({ ownership: undefined }) },
        // The lease lapses by itself; the next owner takes over then.
        onError: { target: 'rechecking', actions: [assign({ ownership: undefined }), 'logFailure'] },
      },
    },
    // Released: a message accepted while we were releasing would have found us the owner and
    // been left to us. Read once more; anything there is ours to take again.
    rechecking: {
      // Work announced while this read is under way: read again.
      on: { 'work.available': { target: 'rechecking', reenter: true } },
      invoke: {
        src: 'readInbox',
        input: ({ context }) => ({ sourceId: context.sourceId, limit: 1 }),
        onDone: [
          {
            guard: { type: 'hasWork', params: ({ event }) => ({ items: event.output }) },
            target: 'acquiring',
          },
          { target: 'idle' },
        ],
        onError: { target: 'retryingAcquire', actions: 'logFailure' },
      },
    },
    // The host's time is up for another turn: the source is released with its inbox waiting,
    // and stays put; whoever hosts it next (the message coming back) takes it from there.
    yielding: {
      invoke: {
        src: 'release',
        input: ({ context }) => ({ ownership: context.ownership }),
        onDone: { target: 'outOfTime', actions: assign({ ownership: undefined }) },
        onError: { target: 'outOfTime', actions: [assign({ ownership: undefined }), 'logFailure'] },
      },
    },
    outOfTime: {
      tags: [SETTLED_TAG],
      on: { evict: 'evicted' },
    },
    // SIGTERM: no side effect starts any more; the source is released at once, so another
    // process resumes it from its last checkpoint without waiting for the lease.
    stopping: {
      entry: ['turnAbandoned', 'stopConversation'],
      invoke: {
        src: 'release',
        input: ({ context }) => ({ ownership: context.ownership }),
        onDone: 'stopped',
        onError: { target: 'stopped', actions: 'logFailure' },
      },
    },
    stopped: { type: 'final', tags: [SETTLED_TAG] },
    evicted: { type: 'final', entry: 'stopConversation', tags: [SETTLED_TAG] },
  },
});

export type SourceMachine = typeof sourceMachine;

/** The inbox keys a plan consumes. */
function keysOf(plan: InboxPlan): readonly string[] {
  switch (plan.kind) {
    case 'turn':
      return plan.keys;
    case 'unsend':
    case 'forget':
    case 'quarantine':
      return [plan.key];
    case 'none':
      return [];
  }
}

/** The checkpoint of the conversation as it stands, with what the source took in since the last one. */
function checkpointRequest(context: SourceContext): CheckpointRequest {
  if (!context.conversation || !context.ownership) throw new Error('checkpoint without a conversation');
  const encoded = encodeConversation(context.conversation, context.savedSeq);
  return {
    ownership: context.ownership,
    expectedVersion: context.version,
    snapshot: encoded.snapshot,
    busy: encoded.busy,
    appended: encoded.appended,
    removedSeqs: context.removedSeqs,
    consumedKeys: context.consumedKeys,
    lastSeq: encoded.lastSeq,
    reason: context.conversation.getSnapshot().hasTag(AWAITING_CHECKPOINT_TAG) ? 'intent' : 'step',
    release: false,
  };
}

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
