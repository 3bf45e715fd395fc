import { describe, expect, it } from 'vitest';
import type { SourceStore } from '../../src/persistence/index.js';
import {
  checkpointOf,
  exchange,
  message,
  neverGone,
  owner,
  records,
  testClock,
  type TestClock,
  WIDE,
} from './source-store-fixtures.js';

/** Which stored record a test damages. */
export type DamageTarget =
  | { readonly record: 'inbox'; readonly sourceId: string; readonly key: string }
  | { readonly record: 'history'; readonly sourceId: string; readonly seq: number }
  | { readonly record: 'snapshot'; readonly sourceId: string }
  | { readonly record: 'profile'; readonly sourceId: string; readonly userId: string };

/** A fresh store whose stored records a test can damage behind its back. */
export interface DamageableStore {
  readonly store: SourceStore;
  /** Overwrites the record's stored form with bytes that do not read back. */
  readonly damage: (target: DamageTarget) => Promise<void>;
}

export type DamageableStoreFactory = (clock: TestClock) => Promise<DamageableStore>;

/**
 * What every durable store does with a record whose stored form does not read back
 * (docs/persistence.md, "Unreadable records"): it leaves it out and says so, never throws.
 * A memory store's records never leave the process, so only the durable stores run it.
 */
export function unreadableRecordsConformance(name: string, create: DamageableStoreFactory) {
  describe(`${name} store: records that do not read back`, () => {
    it('an inbox item comes back unreadable with its key, event id and attempts; the rest read; a checkpoint consumes it', async () => {
      const clock = testClock();
      const { store, damage } = await create(clock);
      const [before, damaged, after] = [
        message('U-a', 'one'),
        message('U-a', 'two'),
        message('U-a', 'three'),
      ];
      for (const item of [before, damaged, after]) await store.accept(item);
      const keys = (await store.inbox('U-a')).map(({ key }) => key);
      await store.countAttempt('U-a', keys[1]!);
      await damage({ record: 'inbox', sourceId: 'U-a', key: keys[1]! });

      const inbox = await store.inbox('U-a');
      expect(inbox).toEqual([
        { key: keys[0], item: before, attempts: 0 },
        { key: keys[1], unreadable: expect.any(String) as string, eventId: damaged.eventId, attempts: 1 },
        { key: keys[2], item: after, attempts: 0 },
      ]);

      const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
      await store.checkpoint(checkpointOf(ownership, { consumedKeys: keys.slice(0, 2) }));
      expect((await store.inbox('U-a')).map(({ key }) => key)).toEqual([keys[2]]);
    });

    it('an accept goes on behind an unreadable newest item', async () => {
      const clock = testClock();
      const { store, damage } = await create(clock);
      await store.accept(message('U-a', 'one'));
      const [stored] = await store.inbox('U-a');
      await damage({ record: 'inbox', sourceId: 'U-a', key: stored!.key });

      const next = message('U-a', 'two');
      expect(await store.accept(next)).toBe(true);
      expect((await store.inbox('U-a')).map(({ item }) => item)).toEqual([undefined, next]);
    });

    it('a history entry ends the window: load returns whole exchanges newer than it and names what it left out', async () => {
      const clock = testClock();
      const { store, damage } = await create(clock);
      const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
      let version = ownership.version;
      for (const n of [1, 2, 3]) {
        version = await store.checkpoint(
          checkpointOf(ownership, { expectedVersion: version, appended: records(3 * n - 2, exchange(n)) }),
        );
      }
      await damage({ record: 'history', sourceId: 'U-a', seq: 2 });

      const { head, history, unreadable } = await store.load('U-a', WIDE);

      expect(head).toMatchObject({ version: 3, lastSeq: 9 });
      // A store that keeps entries in pages loses the page with it: what is left is the newest
      // exchanges, whole, all of them newer than the damaged entry.
      const seqs = history.map(({ seq }) => seq);
      expect([
        [4, 5, 6, 7, 8, 9],
        [7, 8, 9],
      ]).toContainEqual(seqs);
      expect(history).toEqual(records(seqs[0]!, [...exchange(2), ...exchange(3)].slice(seqs[0]! - 4)));
      expect(unreadable).toEqual([
        { record: 'history', key: expect.any(String) as string, error: expect.any(String) as string },
      ]);
    });

    it('a snapshot: the head comes back without it, the rest as stored; the next checkpoint writes one that reads back', async () => {
      const clock = testClock();
      const { store, damage } = await create(clock);
      const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
      const version = await store.checkpoint(checkpointOf(ownership, { appended: records(1, exchange(1)) }));
      await damage({ record: 'snapshot', sourceId: 'U-a' });

      const damaged = await store.load('U-a', WIDE);
      expect(damaged.head).toMatchObject({ version, fence: ownership.fence, lastSeq: 3, busy: false });
      expect(damaged.head?.snapshot).toBeUndefined();
      expect(damaged.history).toEqual(records(1, exchange(1)));
      expect(damaged.unreadable).toEqual([{ record: 'snapshot', error: expect.any(String) as string }]);

      await store.checkpoint(checkpointOf(ownership, { expectedVersion: version }));
      const mended = await store.load('U-a', WIDE);
      expect(mended.head?.snapshot).toEqual({ value: 'idle', context: { turn: null } });
      expect(mended.unreadable).toBeUndefined();
    });

    it('a profile: left out, the others read; saved again, it reads back', async () => {
      const clock = testClock();
      const { store, damage } = await create(clock);
      const ownership = (await store.acquire('C-group', owner('alice', clock), neverGone))!;
      await store.saveProfile(ownership, { userId: 'U1', displayName: 'One', fetchedAt: 1 });
      await store.saveProfile(ownership, { userId: 'U2', displayName: 'Two', fetchedAt: 2 });
      await damage({ record: 'profile', sourceId: 'C-group', userId: 'U2' });

      expect(await store.profiles('C-group')).toEqual([{ userId: 'U1', displayName: 'One', fetchedAt: 1 }]);

      await store.saveProfile(ownership, { userId: 'U2', displayName: 'Two', fetchedAt: 3 });
      expect((await store.profiles('C-group')).map(({ userId }) => userId).sort()).toEqual(['U1', 'U2']);
    });
  });
}
