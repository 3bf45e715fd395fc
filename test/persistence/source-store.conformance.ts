import { afterEach, describe, expect, it } from 'vitest';
import {
  boundHistory,
  isMessage,
  type Clock,
  type HistoryEntry,
  type UserEntry,
} from '../../src/domain/index.js';
import {
  MessageTakenBackError,
  OwnershipLostError,
  VersionConflictError,
  type SourceOwner,
  type SourceStore,
} from '../../src/persistence/index.js';
import { crashScenarios, InjectedFault, observe, type CrashScenario } from './crash-scenarios.js';
import {
  CLAIM_TTL_MS,
  checkpointOf,
  exchange,
  forgetEvent,
  LEASE_MS,
  message,
  model,
  neverGone,
  owner,
  records,
  testClock,
  tool,
  unsendEvent,
  user,
  WIDE,
} from './source-store-fixtures.js';

/** One backend (a database, a table, shared memory) that store instances open. */
export interface SourceStoreBackend {
  /** Another store instance on this backend: another connection, as a second process would have. */
  open(options?: { onWriteStep?: (step: string) => void }): Promise<SourceStore>;
}

export interface BackendOptions {
  readonly clock: Clock;
  readonly claimTtlMs: number;
  /** Messages waiting per source before accept counts them into an overflow item. */
  readonly maxInbox?: number;
}

/** Creates a fresh, empty backend; all an implementation needs to run the suite. */
export type SourceStoreFactory = (options: BackendOptions) => Promise<SourceStoreBackend>;

/**
 * The behaviour every SourceStore must have (docs/persistence.md). Each implementation's test
 * file calls this with a factory of fresh backends; the store under test uses the clock and
 * claim TTL it is given.
 */
export function sourceStoreConformance(name: string, createBackend: SourceStoreFactory) {
  describe(`${name} source store conformance`, () => {
    const opened: SourceStore[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    async function setUp(limits: { maxInbox?: number } = {}) {
      const clock = testClock();
      const backend = await createBackend({ clock, claimTtlMs: CLAIM_TTL_MS, ...limits });
      const open = async (options?: { onWriteStep?: (step: string) => void }) => {
        const store = await backend.open(options);
        opened.push(store);
        return store;
      };
      return { clock, backend, open, store: await open() };
    }

    describe('accept', () => {
      it('claims an event id once: a redelivery is refused and adds nothing', async () => {
        const { store } = await setUp();
        const first = message('U-a', 'hello');

        expect(await store.accept(first)).toBe(true);
        expect(await store.accept(first)).toBe(false);

        expect((await store.inbox('U-a')).map(({ item }) => item)).toEqual([first]);
      });

      it("keeps each source's inbox in acceptance order, apart from other sources", async () => {
        const { store } = await setUp();
        const a = [message('U-a', '1'), message('U-a', '2'), message('U-a', '3')];
        const b = message('U-b', 'other');

        for (const item of [a[0]!, b, a[1]!, a[2]!]) await store.accept(item);

        expect((await store.inbox('U-a')).map(({ item }) => item)).toEqual(a);
        expect((await store.inbox('U-b')).map(({ item }) => item)).toEqual([b]);
        expect(await store.inbox('U-none')).toEqual([]);
      });

      it('accepts an event id again once its claim has expired', async () => {
        const { store, clock } = await setUp();
        const item = message('U-a', 'late redelivery');
        await store.accept(item);

        clock.advance(CLAIM_TTL_MS - 1);
        expect(await store.accept(item)).toBe(false);
        clock.advance(1);
        expect(await store.accept(item)).toBe(true);
      });

      it('keeps source ids and keys as data: ids that look like paths stay in their own inbox', async () => {
        const { store } = await setUp();
        const odd = ['..', '../../inbox', 'C/../x', '%2e%2e', 'C:\\x'];
        for (const sourceId of odd) await store.accept(message(sourceId, `for ${sourceId}`));

        for (const sourceId of odd) {
          expect((await store.inbox(sourceId)).map(({ item }) => item!.source.id)).toEqual([sourceId]);
        }
        expect((await store.sourcesWithWork()).sort()).toEqual([...odd].sort());
      });
    });

    describe('a full inbox (docs/security.md, "A source\'s inbox")', () => {
      it('keeps maxInbox messages and counts the rest into one overflow item, losing none', async () => {
        const { store } = await setUp({ maxInbox: 10 });
        const sent = Array.from({ length: 150 }, (_, index) => message('U-a', `m${index}`));
        const quietOne = { ...message('U-a', 'aside'), quiet: true };

        for (const item of [...sent.slice(0, 75), quietOne, ...sent.slice(75)])
          expect(await store.accept(item)).toBe(true);
        // A redelivery of a message that was only counted is still a duplicate.
        expect(await store.accept(sent[149]!)).toBe(false);

        const items = (await store.inbox('U-a')).map(({ item }) => item);
        expect(items).toHaveLength(11);
        expect(items.slice(0, 10)).toEqual(sent.slice(0, 10));
        expect(items[10]).toMatchObject({
          eventId: sent[10]!.eventId,
          timestamp: sent[149]!.timestamp,
          text: '[141 messages were not kept: the inbox was full]',
          overflow: { count: 141, addressed: 140 },
        });
        // Every message is accounted for: kept, or counted in the overflow item.
        const overflow = isMessage(items[10]!) ? items[10].overflow : undefined;
        expect(10 + overflow!.count).toBe(sent.length + 1);
        expect((await store.listSources()).find(({ sourceId }) => sourceId === 'U-a')?.inboxSize).toBe(11);
      });

      it('always keeps unsend and forget, and keeps messages again once the inbox drains', async () => {
        const { store, clock } = await setUp({ maxInbox: 2 });
        // Built in acceptance order: DynamoDB orders an inbox by the events' timestamps.
        const [one, two, three] = ['1', '2', '3'].map((text) => message('U-a', text));
        const forget = forgetEvent('U-a');
        const four = message('U-a', '4');
        for (const item of [one!, two!, three!, forget, four]) await store.accept(item);

        let items = await store.inbox('U-a');
        expect(items.map(({ item }) => item!.eventId)).toEqual([
          one!.eventId,
          two!.eventId,
          three!.eventId,
          forget.eventId,
          four.eventId,
        ]);
        expect(
          items.map(({ item }) => (item && 'overflow' in item ? item.overflow?.count : undefined)),
        ).toEqual([undefined, undefined, 1, undefined, 1]);

        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        await store.checkpoint(
          checkpointOf(ownership, { consumedKeys: items.slice(0, 4).map(({ key }) => key) }),
        );
        const five = message('U-a', '5');
        await store.accept(five);
        items = await store.inbox('U-a');
        expect(items.map(({ item }) => item!.eventId)).toEqual([four.eventId, five.eventId]);
        expect(items[1]!.item).toEqual(five);
      });
    });

    describe('inbox', () => {
      it('returns the oldest items first, at most `limit`', async () => {
        const { store } = await setUp();
        const items = [1, 2, 3, 4].map((n) => message('U-a', `m${n}`));
        for (const item of items) await store.accept(item);

        expect((await store.inbox('U-a', 2)).map(({ item }) => item)).toEqual(items.slice(0, 2));
        expect(await store.inbox('U-a', 10)).toHaveLength(4);
      });

      it('counts attempts per item; keys order the inbox', async () => {
        const { store } = await setUp();
        for (const n of [1, 2]) await store.accept(message('U-a', `m${n}`));
        const [first, second] = await store.inbox('U-a');

        await store.countAttempt('U-a', first!.key);
        await store.countAttempt('U-a', first!.key);
        await store.countAttempt('U-b', second!.key); // another source's key: no effect

        expect((await store.inbox('U-a')).map(({ attempts }) => attempts)).toEqual([2, 0]);
        expect(first!.key).not.toBe(second!.key);
      });
    });

    describe('ownership', () => {
      it('gives a new source a head at version 0 and the first fence', async () => {
        const { store, clock } = await setUp();
        const alice = owner('alice', clock);

        const ownership = await store.acquire('U-a', alice, neverGone);

        expect(ownership).toEqual({ sourceId: 'U-a', ownerId: alice.ownerId, fence: 1, version: 0 });
        const { head, history } = await store.load('U-a', WIDE);
        expect(head).toMatchObject({
          sourceId: 'U-a',
          version: 0,
          fence: 1,
          owner: alice,
          lastSeq: 0,
          busy: false,
        });
        expect(head?.snapshot).toBeUndefined();
        expect(history).toEqual([]);
      });

      it('does not take a source from a live owner', async () => {
        const { store, clock } = await setUp();
        await store.acquire('U-a', owner('alice', clock), neverGone);

        clock.advance(LEASE_MS); // heartbeatAt + leaseMs === now: still live
        expect(await store.acquire('U-a', owner('bob', clock), neverGone)).toBeUndefined();
      });

      it('takes a source over when the lease ran out, with a higher fence, naming the previous owner', async () => {
        const { store, clock } = await setUp();
        const alice = owner('alice', clock);
        await store.acquire('U-a', alice, neverGone);

        clock.advance(LEASE_MS + 1);
        const bob = owner('bob', clock);
        const ownership = await store.acquire('U-a', bob, neverGone);

        expect(ownership).toEqual({
          sourceId: 'U-a',
          ownerId: bob.ownerId,
          fence: 2,
          version: 0,
          previousOwner: alice,
        });
        expect((await store.load('U-a', WIDE)).head?.owner).toEqual(bob);
      });

      it('takes a source over at once when its owner is gone (a dead process)', async () => {
        const { store, clock } = await setUp();
        const alice = owner('alice', clock);
        await store.acquire('U-a', alice, neverGone);
        const asked: SourceOwner[] = [];

        const ownership = await store.acquire('U-a', owner('bob', clock), (current) => {
          asked.push(current);
          return current.ownerId === alice.ownerId;
        });

        expect(ownership?.fence).toBe(2);
        expect(ownership?.previousOwner).toEqual(alice);
        expect(asked).toEqual([alice]);
      });

      it('lets an owner take its own source again, moving the fence on', async () => {
        const { store, clock } = await setUp();
        const alice = owner('alice', clock);
        const first = (await store.acquire('U-a', alice, neverGone))!;

        const second = await store.acquire('U-a', alice, neverGone);

        expect(second?.fence).toBe(2);
        expect(second?.previousOwner).toBeUndefined(); // not a takeover
        await expect(store.checkpoint(checkpointOf(first))).rejects.toBeInstanceOf(OwnershipLostError);
      });

      it('renews the lease with a heartbeat, and refuses a stale fence', async () => {
        const { store, clock } = await setUp();
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;

        clock.advance(LEASE_MS);
        await store.renew(ownership, clock.now());
        clock.advance(LEASE_MS);

        expect(await store.acquire('U-a', owner('bob', clock), neverGone)).toBeUndefined();
        await expect(store.renew({ ...ownership, fence: 0 }, clock.now())).rejects.toMatchObject({
          name: 'OwnershipLostError',
          sourceId: 'U-a',
          fence: 0,
          currentFence: 1,
          currentOwnerId: 'alice-owner',
        });
      });

      it('releases: another owner takes it at once; the released owner can neither renew nor write', async () => {
        const { store, clock } = await setUp();
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;

        await store.release(ownership);
        await store.release(ownership); // already released: no-op

        await expect(store.renew(ownership, clock.now())).rejects.toBeInstanceOf(OwnershipLostError);
        await expect(store.checkpoint(checkpointOf(ownership))).rejects.toBeInstanceOf(OwnershipLostError);
        expect((await store.load('U-a', WIDE)).head?.owner).toBeUndefined();
        expect(await store.acquire('U-a', owner('bob', clock), neverGone)).toMatchObject({ fence: 2 });
      });

      it('releases in the checkpoint that asks to: written and given up at once, the same version taken again', async () => {
        const { store, clock } = await setUp();
        await store.accept(message('U-a', 'hello'));
        const [stored] = await store.inbox('U-a');
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;

        const version = await store.checkpoint(
          checkpointOf(ownership, { consumedKeys: [stored!.key], release: true }),
        );

        const { head } = await store.load('U-a', WIDE);
        expect(head).toMatchObject({ version, fence: 1, snapshot: { value: 'idle' } });
        expect(head?.owner).toBeUndefined();
        expect(await store.inbox('U-a')).toEqual([]);
        await expect(store.renew(ownership, clock.now())).rejects.toBeInstanceOf(OwnershipLostError);
        await expect(
          store.checkpoint(checkpointOf(ownership, { expectedVersion: version })),
        ).rejects.toBeInstanceOf(OwnershipLostError);
        expect(await store.acquire('U-a', owner('bob', clock), neverGone)).toMatchObject({
          fence: 2,
          version,
        });
      });

      it('closes a turn: releases in the same write only when the inbox is then empty (stores that can see it)', async ({
        skip,
      }) => {
        const { store, clock } = await setUp();
        if (!store.closeTurn) return skip('this store closes a turn by reading its inbox first');
        for (const text of ['first', 'second']) await store.accept(message('U-a', text));
        const [first, second] = await store.inbox('U-a');
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;

        // The second message still waits: written, and still owned.
        const kept = await store.closeTurn(checkpointOf(ownership, { consumedKeys: [first!.key] }));
        expect(kept.released).toBe(false);
        expect((await store.load('U-a', WIDE)).head).toMatchObject({
          version: kept.version,
          owner: { ownerId: ownership.ownerId },
        });

        // Its turn consumes the last one: written and given up at once.
        const closed = await store.closeTurn(
          checkpointOf(ownership, { expectedVersion: kept.version, consumedKeys: [second!.key] }),
        );
        expect(closed).toEqual({ version: kept.version + 1, released: true });
        const { head } = await store.load('U-a', WIDE);
        expect(head?.owner).toBeUndefined();
        expect(await store.inbox('U-a')).toEqual([]);
        await expect(store.renew(ownership, clock.now())).rejects.toBeInstanceOf(OwnershipLostError);
        // A later message finds the source free.
        expect(await store.acquire('U-a', owner('bob', clock), neverGone)).toMatchObject({ fence: 2 });
      });

      it("refuses a stale owner's checkpoint after a takeover, and writes nothing of it", async () => {
        const { store, clock } = await setUp();
        const item = message('U-a', 'hello');
        await store.accept(item);
        const [stored] = await store.inbox('U-a');
        const stale = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        clock.advance(LEASE_MS + 1);
        const current = (await store.acquire('U-a', owner('bob', clock), neverGone))!;

        const refused = store.checkpoint(
          checkpointOf(stale, { appended: records(1, exchange(1)), consumedKeys: [stored!.key] }),
        );

        await expect(refused).rejects.toMatchObject({
          name: 'OwnershipLostError',
          fence: 1,
          currentFence: 2,
        });
        expect(await store.inbox('U-a')).toHaveLength(1);
        expect((await store.load('U-a', WIDE)).history).toEqual([]);
        expect(await store.checkpoint(checkpointOf(current))).toBe(1);
        await store.release(stale); // a stale release leaves the new owner in place
        expect((await store.load('U-a', WIDE)).head?.owner?.ownerId).toBe('bob-owner');
      });
    });

    describe('checkpoint', () => {
      it('writes head, new entries and consumed inbox items together; the next appends only new seqs', async () => {
        const { store, clock } = await setUp();
        const items = [message('U-a', 'one'), message('U-a', 'two')];
        for (const item of items) await store.accept(item);
        const [first] = await store.inbox('U-a');
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;

        const version = await store.checkpoint(
          checkpointOf(ownership, {
            appended: records(1, exchange(1)),
            consumedKeys: [first!.key],
            busy: true,
            snapshot: { value: 'delivering', context: { turn: { id: 't1' } } },
          }),
        );
        clock.advance(5);
        const next = await store.checkpoint(
          checkpointOf(ownership, { expectedVersion: version, appended: records(4, [user('closing')]) }),
        );

        expect([version, next]).toEqual([1, 2]);
        const { head, history } = await store.load('U-a', WIDE);
        expect(head).toMatchObject({
          version: 2,
          fence: 1,
          machineVersion: 7,
          lastSeq: 4,
          busy: false,
          updatedAt: clock.now(),
          snapshot: { value: 'idle', context: { turn: null } },
        });
        expect(history).toEqual(records(1, [...exchange(1), user('closing')]));
        expect((await store.inbox('U-a')).map(({ item }) => item)).toEqual([items[1]]);
      });

      it('deletes the entries an unsend removed, and nothing else', async () => {
        const { store, clock } = await setUp();
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        const entries = [...exchange(1), ...exchange(2)];
        await store.checkpoint(checkpointOf(ownership, { appended: records(1, entries) }));

        await store.checkpoint(checkpointOf(ownership, { expectedVersion: 1, removedSeqs: [4, 99] }));

        const { head, history } = await store.load('U-a', WIDE);
        expect(history.map(({ seq }) => seq)).toEqual([1, 2, 3, 5, 6]);
        expect(head?.lastSeq).toBe(6);
      });

      it('writes only when the version is unchanged, and nothing of a refused checkpoint', async () => {
        const { store, clock } = await setUp();
        await store.accept(message('U-a', 'hello'));
        const [item] = await store.inbox('U-a');
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        await store.checkpoint(checkpointOf(ownership));

        const refused = store.checkpoint(
          checkpointOf(ownership, { appended: records(1, exchange(1)), consumedKeys: [item!.key] }),
        );

        await expect(refused).rejects.toBeInstanceOf(VersionConflictError);
        await expect(refused).rejects.toMatchObject({ expectedVersion: 0, actualVersion: 1 });
        expect(await store.inbox('U-a')).toHaveLength(1);
        expect((await store.load('U-a', WIDE)).history).toEqual([]);
      });

      it("refuses a turn's checkpoint that consumes a message taken back since it was read, writing nothing", async () => {
        const { store, clock } = await setUp();
        const oops = { ...message('U-a', 'oops'), messageId: 'm-oops' };
        const fine = { ...message('U-a', 'fine'), messageId: 'm-fine' };
        for (const item of [oops, fine]) await store.accept(item);
        const [first, second] = await store.inbox('U-a');
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        const unsend = unsendEvent('U-a', 'm-oops');
        await store.accept(unsend);

        const refused = store.checkpoint(
          checkpointOf(ownership, {
            appended: records(1, exchange(1)),
            consumedKeys: [first!.key],
            answering: true,
          }),
        );

        await expect(refused).rejects.toBeInstanceOf(MessageTakenBackError);
        await expect(refused).rejects.toMatchObject({ sourceId: 'U-a', keys: [first!.key] });
        expect((await store.inbox('U-a')).map(({ item }) => item)).toEqual([oops, fine, unsend]);
        // The mark reads back: a plan that cannot see the unsend still drops the message.
        expect((await store.inbox('U-a')).map(({ takenBack }) => takenBack)).toEqual([
          true,
          undefined,
          undefined,
        ]);
        expect((await store.load('U-a', WIDE)).history).toEqual([]);
        // The message still wanted is answered; the unsend's own step takes the other one along.
        const version = await store.checkpoint(
          checkpointOf(ownership, { consumedKeys: [second!.key], answering: true }),
        );
        const unsendKey = (await store.inbox('U-a')).at(-1)!.key;
        await store.checkpoint(
          checkpointOf(ownership, { expectedVersion: version, consumedKeys: [first!.key, unsendKey] }),
        );
        expect(await store.inbox('U-a')).toEqual([]);
      });

      it('checks the fence before the version', async () => {
        const { store, clock } = await setUp();
        const stale = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        await store.acquire('U-a', owner('alice', clock), neverGone);

        await expect(store.checkpoint(checkpointOf(stale, { expectedVersion: 5 }))).rejects.toBeInstanceOf(
          OwnershipLostError,
        );
      });

      it('refuses entries whose seq does not continue above the saved ones, writing nothing', async () => {
        const { store, clock } = await setUp();
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        await store.checkpoint(checkpointOf(ownership, { appended: records(1, exchange(1)) }));

        const reused = store.checkpoint(
          checkpointOf(ownership, { expectedVersion: 1, appended: records(3, exchange(2)) }),
        );

        await expect(reused).rejects.toBeInstanceOf(RangeError);
        expect((await store.load('U-a', WIDE)).head?.version).toBe(1);
      });
    });

    describe('load', () => {
      async function storeWith(history: readonly HistoryEntry[]) {
        const { store, clock } = await setUp();
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        await store.checkpoint(checkpointOf(ownership, { appended: records(1, history) }));
        return store;
      }

      it('returns nothing for a source never seen', async () => {
        const { store } = await setUp();
        expect(await store.load('U-unknown', WIDE)).toEqual({ head: undefined, history: [] });
      });

      it('returns the newest whole exchanges within the entry limit, oldest first', async () => {
        const history = [1, 2, 3, 4].map((n) => exchange(n)).flat();
        const store = await storeWith(history);

        const { history: window } = await store.load('U-a', { maxEntries: 8, maxBytes: 1_000_000 });

        expect(window).toEqual(records(7, history.slice(6)));
      });

      it('returns the newest whole exchanges within the byte limit, to the byte', async () => {
        const history = [1, 2, 3].map((n) => exchange(n, 'σ'.repeat(1024))).flat();
        const store = await storeWith(history);
        const lastTwo = Buffer.byteLength(JSON.stringify(history.slice(3)), 'utf8');

        const fits = await store.load('U-a', { maxEntries: 100, maxBytes: lastTwo });
        const under = await store.load('U-a', { maxEntries: 100, maxBytes: lastTwo - 1 });

        expect(fits.history.map(({ seq }) => seq)).toEqual([4, 5, 6, 7, 8, 9]);
        expect(under.history.map(({ seq }) => seq)).toEqual([7, 8, 9]);
      });

      it('starts every window at a user entry and keeps calls with their answers', async () => {
        const history: HistoryEntry[] = [
          model('t0', [], ''), // its user entry was unsent
          user('weather?'),
          model('t1', ['c1']),
          user('and tomorrow?'), // arrived while c1 ran
          tool('t1', ['c1']),
          model('t1', ['c2']),
          tool('t1', ['c2']),
          user('thanks'),
          model('t2', ['c3']),
          tool('t2', ['c3']),
        ];
        const store = await storeWith(history);

        for (const maxEntries of [1, 3, 4, 6, 7, 9, 10, 11]) {
          const window = { maxEntries, maxBytes: 1_000_000 };
          const { history: loaded } = await store.load('U-a', window);

          expect(loaded.map(({ entry }) => entry)).toEqual(boundHistory(history, window));
          expect(loaded[0]?.entry.role).toBe('user');
        }
      });

      it('a window of no entries returns the head alone (a caller after its state)', async () => {
        const store = await storeWith([1, 2].map((n) => exchange(n)).flat());

        const { head, history } = await store.load('U-a', { maxEntries: 0, maxBytes: 0 });

        expect(head?.lastSeq).toBe(6);
        expect(history).toEqual([]);
      });
    });

    describe('forget', () => {
      it('deletes history, profiles, snapshot and the inbox up to the forget; later items and a tombstone stay', async () => {
        const { store, clock } = await setUp();
        const before = message('U-a', 'before');
        const forget = forgetEvent('U-a');
        const after = message('U-a', 'after');
        for (const item of [before, forget, after]) await store.accept(item);
        const ownership = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        await store.checkpoint(checkpointOf(ownership, { appended: records(1, exchange(1)), busy: true }));
        await store.saveProfile(ownership, { userId: 'U-a', displayName: 'Alice', fetchedAt: 1 });
        const [, forgetItem] = await store.inbox('U-a');

        await store.forget(ownership, forgetItem!.key);

        expect((await store.inbox('U-a')).map(({ item }) => item)).toEqual([after]);
        expect(await store.profiles('U-a')).toEqual([]);
        const { head, history } = await store.load('U-a', WIDE);
        expect(history).toEqual([]);
        expect(head).toMatchObject({
          version: 2,
          fence: 1,
          owner: { ownerId: 'alice-owner' },
          lastSeq: 3,
          busy: false,
        });
        expect(head?.snapshot).toBeUndefined();
        expect(await store.accept(before)).toBe(false); // claims stay: a redelivery is still refused
        // The tombstone's owner goes on: new entries continue above the old seqs.
        expect(
          await store.checkpoint(
            checkpointOf(ownership, { expectedVersion: 2, appended: records(4, [user('again')]) }),
          ),
        ).toBe(3);
      });

      it('checks the fence', async () => {
        const { store, clock } = await setUp();
        await store.accept(forgetEvent('U-a'));
        const [item] = await store.inbox('U-a');
        const stale = (await store.acquire('U-a', owner('alice', clock), neverGone))!;
        await store.acquire('U-a', owner('alice', clock), neverGone);

        await expect(store.forget(stale, item!.key)).rejects.toBeInstanceOf(OwnershipLostError);
        expect(await store.inbox('U-a')).toHaveLength(1);
      });
    });

    describe('profiles', () => {
      it('stores one item per user, refreshed in place, under the fence', async () => {
        const { store, clock } = await setUp();
        const ownership = (await store.acquire('C-group', owner('alice', clock), neverGone))!;

        await store.saveProfile(ownership, { userId: 'U1', displayName: 'One', fetchedAt: 1 });
        await store.saveProfile(ownership, { userId: 'U2', fetchedAt: 2 });
        await store.saveProfile(ownership, { userId: 'U1', displayName: 'One again', fetchedAt: 3 });
        await store.acquire('C-group', owner('alice', clock), neverGone);
        const stale = store.saveProfile(ownership, { userId: 'U3', fetchedAt: 4 });

        await expect(stale).rejects.toBeInstanceOf(OwnershipLostError);
        const profiles = await store.profiles('C-group');
        expect(profiles.sort((a, b) => a.userId.localeCompare(b.userId))).toEqual([
          { userId: 'U1', displayName: 'One again', fetchedAt: 3 },
          { userId: 'U2', fetchedAt: 2 },
        ]);
        expect(await store.profiles('C-other')).toEqual([]);
      });
    });

    describe('listing', () => {
      it('lists sources with work (inbox items or a busy head) and every source with its summary', async () => {
        const { store, clock } = await setUp();
        await store.accept(message('U-waiting', 'hi'));
        await store.accept(message('U-waiting', 'again'));
        const busy = (await store.acquire('U-busy', owner('alice', clock), neverGone))!;
        await store.checkpoint(checkpointOf(busy, { busy: true }));
        const idle = (await store.acquire('U-idle', owner('alice', clock), neverGone))!;
        await store.checkpoint(checkpointOf(idle));
        await store.release(idle);

        expect((await store.sourcesWithWork()).sort()).toEqual(['U-busy', 'U-waiting']);
        const summaries = await store.listSources();
        expect(summaries.sort((a, b) => a.sourceId.localeCompare(b.sourceId))).toEqual([
          {
            sourceId: 'U-busy',
            version: 1,
            owner: owner('alice', clock),
            busy: true,
            inboxSize: 0,
            updatedAt: clock.now(),
          },
          { sourceId: 'U-idle', version: 1, busy: false, inboxSize: 0, updatedAt: clock.now() },
          { sourceId: 'U-waiting', version: 0, busy: false, inboxSize: 2, updatedAt: 0 },
        ]);
      });

      it('lists the most recently updated first, at most as many as asked (the inspector asks for 500)', async () => {
        const { store, clock } = await setUp();
        await store.accept(message('U-waiting', 'hi'));
        for (const sourceId of ['U-c', 'U-a', 'U-b']) {
          clock.advance(1_000);
          const ownership = (await store.acquire(sourceId, owner('alice', clock), neverGone))!;
          await store.checkpoint(checkpointOf(ownership));
          await store.release(ownership);
        }

        const ids = async (limit?: number) =>
          (await store.listSources(limit)).map((summary) => summary.sourceId);
        expect(await ids()).toEqual(['U-b', 'U-a', 'U-c', 'U-waiting']);
        expect(await ids(2)).toEqual(['U-b', 'U-a']);
        expect(await ids(0)).toEqual([]);
      });
    });

    describe('two writers on one backend', () => {
      it('lets exactly one win each round of accept, acquire and checkpoint, and loses nothing', async () => {
        const { open, clock } = await setUp();
        const writers = [await open(), await open()] as const;
        const accepted: string[] = [];
        let version = 0;
        let seq = 0;

        for (let round = 0; round < 20; round++) {
          const redelivered = message('U-a', `round ${round}`);
          const own = [message('U-a', `first ${round}`), message('U-a', `second ${round}`)];
          const claims = await Promise.all([
            writers[0].accept(redelivered),
            writers[1].accept(redelivered),
            writers[0].accept(own[0]!),
            writers[1].accept(own[1]!),
          ]);
          expect(claims.slice(0, 2).filter(Boolean)).toHaveLength(1);
          accepted.push(redelivered.eventId, ...own.map(({ eventId }) => eventId));

          const ownerships = await Promise.all(
            writers.map((writer, index) =>
              writer.acquire('U-a', owner(`w${index}-${round}`, clock), neverGone),
            ),
          );
          const won = ownerships.filter((ownership) => ownership !== undefined);
          expect(won).toHaveLength(1);
          const ownership = won[0]!;
          const winner = writers[ownerships.indexOf(ownership)]!;

          // Both writers try the same step: only one checkpoint of a version can land.
          const inbox = await winner.inbox('U-a');
          const step = checkpointOf(ownership, {
            expectedVersion: version,
            appended: records(
              seq + 1,
              inbox.map(({ item }) => ({ ...user(item!.eventId), eventId: item!.eventId })),
            ),
            consumedKeys: inbox.map(({ key }) => key),
          });
          const results = await Promise.allSettled(writers.map((writer) => writer.checkpoint(step)));
          expect(results.filter(({ status }) => status === 'fulfilled')).toHaveLength(1);
          expect(results.find(({ status }) => status === 'rejected')).toMatchObject({
            reason: expect.any(VersionConflictError) as unknown,
          });
          version++;
          seq += inbox.length;
          await winner.release(ownership);
        }

        const { history } = await writers[0].load('U-a', WIDE);
        expect(history.map(({ entry }) => (entry as UserEntry).eventId)).toEqual(accepted);
        expect(await writers[1].inbox('U-a')).toEqual([]);
      });
    });

    describe('a crash at every write', () => {
      it.each(crashScenarios.map((scenario) => [scenario.name, scenario] as const))(
        '%s: after a fault at any step, a new instance sees all of the write or none of it',
        async (_name, scenario) => {
          const { before, after, steps } = await dryRun(scenario);
          expect(steps.length).toBeGreaterThan(1);
          expect(after).not.toEqual(before);

          for (const faultAt of steps) {
            const { store, open } = await setUp();
            await scenario.arrange(store);
            const faulty = await open({
              onWriteStep: (step) => {
                if (step === faultAt) throw new InjectedFault(step);
              },
            });

            await expect(scenario.act(faulty), `fault at ${faultAt}`).rejects.toBeInstanceOf(InjectedFault);

            const seen = await observe(await open(), scenario);
            expect([before, after], `fault at ${faultAt}`).toContainEqual(seen);
          }
        },
      );

      /** The state before and after the whole write, and the steps the write goes through. */
      async function dryRun(scenario: CrashScenario) {
        const untouched = await setUp();
        await scenario.arrange(untouched.store);
        const before = await observe(untouched.store, scenario);
        const { store, open } = await setUp();
        await scenario.arrange(store);
        const steps: string[] = [];
        await scenario.act(await open({ onWriteStep: (step) => steps.push(step) }));
        return { before, after: await observe(await open(), scenario), steps };
      }
    });
  });
}
