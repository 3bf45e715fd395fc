import { and, assign } from 'xstate';
import { defaults } from '../defaults/index.js';
import { AWAITING_CHECKPOINT_TAG } from '../machines/index.js';
import { planKeys, type InboxPlan } from './inbox-plan.js';
import { encodeConversation } from './snapshot-codec.js';
import { liveConversation, sourceSetup } from './source-setup.js';
import {
  SETTLED_TAG,
  type CheckpointRequest,
  type LoadedConversation,
  type NextStep,
  type SourceContext,
} from './source-types.js';

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

/** The conversation a `load` restored replaces the one the source had, and starts. */
const startLoaded = [
  'stopConversation',
  { type: 'takeLoaded', params: ({ event }: { event: { output: LoadedConversation } }) => event.output },
  'watchConversation',
  'startConversation',
] as const;

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
            // Dropped before its answer: reloaded, the message goes with its unsend, unanswered.
            guard: 'messageTakenBack' as const,
            target: '#source.owned.conflict',
            actions: ['turnAbandoned' as const, 'logTakenBack' as const],
          },
          {
            guard: 'versionConflict' as const,
            target: '#source.owned.conflict',
            actions: 'logFailure' as const,
          },
          {
            guard: 'checkpointNeverFits' as const,
            target: '#source.owned.unstorable',
            actions: 'logUnstorable' as const,
          },
        ]
      : []),
    { target: retry, actions: ['countFailure' as const, 'logFailure' as const] },
  ];
}

/**
 * The source loaded again with its turn set aside (`why` is logged): the turn the head holds in
 * progress is abandoned (calls answered as errors, the notice sent), or, when the head holds
 * none (nothing of it was durable), the inbox's first message — the one that turn answered —
 * is set aside from `active.settingAside`.
 */
function settingTurnAside(why: string) {
  return sourceSetup.createStateConfig({
    initial: 'reading',
    states: {
      reading: {
        invoke: {
          src: 'load',
          input: ({ context }) => ({
            sourceId: context.sourceId,
            ownership: context.ownership!,
            setAsideTurn: why,
          }),
          onDone: [
            {
              guard: { type: 'turnSetAside', params: ({ event }) => ({ loaded: event.output }) },
              target: '#source.owned.active',
              actions: [...startLoaded, 'clearTurnFailures'],
            },
            {
              target: '#source.owned.active.settingAside',
              actions: [...startLoaded, 'clearTurnFailures'],
            },
          ],
          onError: writeFailed('waiting'),
        },
      },
      waiting: { after: { retry: 'reading' } },
    },
  });
}

/** Releases the source although its inbox holds work, then settles in `target`. */
function releasingWithWork(target: 'outOfTime' | 'gaveWay') {
  return sourceSetup.createStateConfig({
    invoke: {
      src: 'release',
      input: ({ context }) => ({ ownership: context.ownership }),
      onDone: { target, actions: assign({ ownership: undefined }) },
      onError: { target, actions: [assign({ ownership: undefined }), 'logFailure'] },
    },
  });
}

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

/**
 * The lifecycle of one LINE source in this process (docs/runtime.md, "Ownership"): it takes
 * the source (a lease with a fence), loads the head and the history window, feeds the inbox
 * to the conversation in order, writes a checkpoint whenever a side effect waits or a step
 * ends, releases the source once the inbox is empty — and reads the inbox once more, so a
 * message accepted meanwhile is never stranded. A host that lost the source stops before its
 * next side effect; a version conflict reloads and resumes only a head it still owns.
 */
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
    turnFailures: 0,
    workAnnounced: false,
    turnsHeld: 0,
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
      entry: ['holdLease', assign({ turnsHeld: 0 })],
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
                onDone: { target: '#source.owned.active', actions: startLoaded },
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
              actions: ['countFailure', 'countTurnFailure', 'logFailure'],
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
                      turnsHeld: context.turnsHeld,
                    }),
                    onDone: [
                      {
                        // Others wait for a working room, and this source had its turn: it lets them in first.
                        guard: { type: 'givesWay', params: ({ event }) => event.output },
                        target: '#source.givingWay',
                      },
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
                              consumedKeys: [...context.consumedKeys, ...planKeys(plan)],
                              turnsHeld: context.turnsHeld + 1,
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
                        actions: [{ type: 'takePlan', params: ({ event }) => event.output }, 'consumePlan'],
                      },
                      onPlan('forget', '#source.owned.active.forgetting'),
                      {
                        // Not an item at all: the checkpoint consumes it, no turn runs.
                        guard: {
                          type: 'planIs',
                          params: ({ event }) => ({ plan: event.output.plan, kind: 'unreadable' }),
                        },
                        target: '#source.owned.active.checkpointing',
                        actions: [
                          { type: 'takePlan', params: ({ event }) => event.output },
                          'consumePlan',
                          'setAsideUnreadable',
                        ],
                      },
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
                  {
                    guard: 'closesTurnInOneWrite',
                    target: 'closingTurn',
                    actions: ['turnEnded', 'clearTurnFailures'],
                  },
                  { target: 'settling', actions: ['turnEnded', 'clearTurnFailures'] },
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
                  // What the conversation held of the message, and what the store holds of it
                  // beyond the window in memory.
                  actions: assign(({ context, event }) => ({
                    removedSeqs: [
                      ...new Set([
                        ...context.removedSeqs,
                        ...event.seqs.filter((seq) => seq <= context.savedSeq),
                        ...(context.plan.kind === 'unsend' ? (context.plan.storedSeqs ?? []) : []),
                      ]),
                    ],
                    consumedKeys: [...context.consumedKeys, ...planKeys(context.plan)],
                  })),
                },
              },
            },
            // After an unstorable turn that left nothing durable: its message is set aside.
            settingAside: {
              initial: 'fetching',
              states: {
                fetching: {
                  invoke: {
                    src: 'readInbox',
                    input: ({ context }) => ({ sourceId: context.sourceId, limit: 1 }),
                    onDone: [
                      {
                        guard: {
                          type: 'messageToSetAside',
                          params: ({ event }) => ({ items: event.output }),
                        },
                        target: '#source.owned.active.quarantining',
                        actions: { type: 'planSetAside', params: ({ event }) => ({ items: event.output }) },
                      },
                      { target: '#source.owned.active.reading' },
                    ],
                    onError: { target: 'waiting', actions: ['countFailure', 'logFailure'] },
                  },
                },
                waiting: { after: { retry: 'fetching' } },
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
                onDone: { target: 'checkpointing', actions: 'consumePlan' },
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
        // A checkpoint the store can never write (too large): what the turn did since the last
        // one goes with the conversation, and the turn is set aside — the one the head holds in
        // progress, or else the inbox's first message, which that turn was answering.
        unstorable: {
          entry: ['turnAbandoned', 'stopConversation'],
          ...settingTurnAside('its checkpoint can never be stored'),
        },
        // The conversation actor failed: drop it and load the source again from its last
        // checkpoint (what it did since then runs again) after a pause — or, when it failed that
        // way as often as it may, set its turn aside as above.
        failed: {
          entry: ['turnAbandoned', 'stopConversation'],
          initial: 'pausing',
          states: {
            pausing: {
              after: {
                retry: [
                  { guard: 'turnKeepsFailing', target: 'givingUp' },
                  { target: '#source.owned.loading' },
                ],
              },
            },
            givingUp: settingTurnAside(`it failed ${defaults.host.maxTurnFailures} times in a row`),
          },
        },
        // Another writer got there first, or the turn's message was taken back (nothing of the
        // turn was written: the head before it is loaded, and the unsend takes the message).
        // Reload: a head still under our fence is what we wrote (a write that succeeded although
        // its answer was lost) and is resumed; any other head belongs to a new owner — whatever
        // it is delivering, this process never resumes it.
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
    yielding: releasingWithWork('outOfTime'),
    outOfTime: {
      tags: [SETTLED_TAG],
      on: { evict: 'evicted' },
    },
    // Other sources wait for a working room and this one had its turn: released with its inbox
    // waiting, it queues behind them (its host does that) and is taken again when let in.
    givingWay: releasingWithWork('gaveWay'),
    gaveWay: {
      tags: [SETTLED_TAG],
      on: { 'work.available': 'acquiring', evict: 'evicted' },
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
    answering: context.plan.kind === 'turn',
    lastSeq: encoded.lastSeq,
    reason: context.conversation.getSnapshot().hasTag(AWAITING_CHECKPOINT_TAG) ? 'intent' : 'step',
    release: false,
  };
}
