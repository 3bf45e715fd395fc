import type { InboundMessage, InboxItem } from '../../src/domain/index.js';
import type { Ownership, SourceOwner, SourceStore } from '../../src/persistence/index.js';
import {
  checkpointOf,
  exchange,
  forgetEvent,
  LEASE_MS,
  message,
  neverGone,
  records,
  WIDE,
} from './source-store-fixtures.js';

// The writes of the port, each to be interrupted at every one of its steps: by an injected
// fault in the conformance suite, by SIGKILL in a child process for SQLite.

/** The fault a crash test injects at one step of a write. */
export class InjectedFault extends Error {
  override readonly name = 'InjectedFault';
  constructor(readonly step: string) {
    super(`injected fault at ${step}`);
  }
}

/** A write to interrupt, on a store brought to a fixed state first; deterministic with a fixed clock. */
export interface CrashScenario {
  readonly name: string;
  readonly sourceId: string;
  /** Items whose claim is observed (by trying to accept them again, last). */
  readonly probes: readonly InboundMessage[];
  arrange(store: SourceStore): Promise<void>;
  act(store: SourceStore): Promise<unknown>;
}

/** Everything a store shows about the scenario's source: compared before and after a fault. */
export async function observe(store: SourceStore, scenario: CrashScenario) {
  const { sourceId } = scenario;
  const seen = {
    loaded: await store.load(sourceId, WIDE),
    inbox: await store.inbox(sourceId),
    profiles: await store.profiles(sourceId),
    withWork: (await store.sourcesWithWork()).sort(),
    claimed: [] as boolean[],
  };
  // Last, as it writes: a claim that is there refuses the item again.
  for (const probe of scenario.probes) seen.claimed.push(!(await store.accept(probe)));
  return seen;
}

const SOURCE_ID = 'U-crash';
const crashOwner: SourceOwner = {
  ownerId: 'crash-owner',
  host: 'test-host',
  pid: 4242,
  heartbeatAt: 1,
  leaseMs: LEASE_MS,
};
const ownership: Ownership = { sourceId: SOURCE_ID, ownerId: crashOwner.ownerId, fence: 1, version: 0 };
const items = [
  message(SOURCE_ID, 'first'),
  message(SOURCE_ID, 'second'),
  forgetEvent(SOURCE_ID),
  message(SOURCE_ID, 'third'),
] as const;

async function acceptAll(store: SourceStore, accepted: readonly InboxItem[]) {
  for (const item of accepted) await store.accept(item);
}

async function withHistory(store: SourceStore) {
  await store.acquire(SOURCE_ID, crashOwner, neverGone);
  await store.checkpoint(checkpointOf(ownership, { appended: records(1, exchange(1)) }));
}

/** The writes of the port, each from a state in which every step of it changes something. */
export const crashScenarios: readonly CrashScenario[] = [
  {
    name: 'accept',
    sourceId: SOURCE_ID,
    probes: [items[0]],
    arrange: async () => {},
    act: (store) => store.accept(items[0]),
  },
  {
    name: 'acquire',
    sourceId: SOURCE_ID,
    probes: [],
    arrange: async () => {},
    act: (store) => store.acquire(SOURCE_ID, crashOwner, neverGone),
  },
  {
    name: 'checkpoint',
    sourceId: SOURCE_ID,
    probes: [],
    arrange: async (store) => {
      await acceptAll(store, items.slice(0, 2));
      await withHistory(store);
    },
    act: async (store) => {
      const inbox = await store.inbox(SOURCE_ID);
      return store.checkpoint(
        checkpointOf(ownership, {
          expectedVersion: 1,
          busy: true,
          appended: records(4, exchange(2, 'σ'.repeat(1024))),
          removedSeqs: [2],
          consumedKeys: inbox.map(({ key }) => key),
        }),
      );
    },
  },
  {
    name: 'forget',
    sourceId: SOURCE_ID,
    probes: [],
    arrange: async (store) => {
      await acceptAll(store, items);
      await withHistory(store);
      await store.saveProfile(ownership, { userId: 'U1', displayName: 'One', fetchedAt: 1 });
    },
    act: async (store) => {
      const inbox = await store.inbox(SOURCE_ID);
      return store.forget(ownership, inbox[2]!.key);
    },
  },
  {
    name: 'saveProfile',
    sourceId: SOURCE_ID,
    probes: [],
    arrange: (store) => store.acquire(SOURCE_ID, crashOwner, neverGone).then(() => {}),
    act: (store) => store.saveProfile(ownership, { userId: 'U1', displayName: 'One', fetchedAt: 1 }),
  },
];
