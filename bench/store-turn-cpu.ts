import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSqliteSourceStore, type Ownership } from '../src/persistence/index.js';
import { replyTurn } from '../test/support/reply-turn.js';
import { NaiveHistoryStore } from './naive-history-store.js';

// What persistence costs per turn, store against store, in one process: the SQLite source
// store's calls of one simple reply turn (`acceptAndAcquire`, the inbox read, the intent
// checkpoint, `closeTurn`) against the naive bot's load and save of the same entries (its whole
// history, kept to kaiwa's window), measured on turns 31–40 of 100 conversations.
// `npx tsx bench/store-turn-cpu.ts [pageSize]` (docs/PERFORMANCE.md).

const pageSize = Number(process.argv[2] ?? 1024);
const sources = 100;
const turns = 40;
const measuredFrom = 31;
const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-store-cpu-'));
const store = await openSqliteSourceStore({ file: path.join(directory, 'kaiwa.db'), pageSize });
const naive = NaiveHistoryStore.open(path.join(directory, 'naive.db'));
const versions = new Map<string, number>();
const micros = (usage: NodeJS.CpuUsage) => usage.user + usage.system;
let kaiwaCpu = 0;
let naiveCpu = 0;
let measured = 0;

for (let turn = 1; turn <= turns; turn++) {
  for (let index = 0; index < sources; index++) {
    const sourceId = `U${String(index).padStart(32, '0')}`;
    const { message, intent, sent } = replyTurn({
      sourceId,
      turn,
      firstSeq: 3 * turn - 2,
      signatureBytes: 1024,
    });

    const kaiwaStart = process.cpuUsage();
    const owner = {
      ownerId: 'bench',
      host: 'bench',
      pid: process.pid,
      heartbeatAt: Date.now(),
      leaseMs: 60_000,
    };
    const { ownership } = await store.acceptAndAcquire(message, owner);
    if (!ownership) throw new Error(`source ${sourceId} was not taken`);
    const [waiting] = await store.inbox(sourceId, 100);
    const base = { ownership: ownership satisfies Ownership, machineVersion: 3, removedSeqs: [] };
    const version = await store.checkpoint({
      ...base,
      expectedVersion: versions.get(sourceId) ?? 0,
      snapshot: intent.snapshot,
      busy: true,
      appended: intent.records,
      consumedKeys: [waiting!.key],
    });
    const closed = await store.closeTurn({
      ...base,
      expectedVersion: version,
      snapshot: sent.snapshot,
      busy: false,
      appended: sent.records,
      consumedKeys: [],
    });
    if (!closed.released) throw new Error('the closing write did not release the source');
    versions.set(sourceId, closed.version);
    const kaiwaTurn = micros(process.cpuUsage(kaiwaStart));

    const naiveStart = process.cpuUsage();
    const history = await naive.load(sourceId);
    history.push(
      ...intent.records.map((record) => record.entry),
      ...sent.records.map((record) => record.entry),
    );
    await naive.save(sourceId, history.slice(-60));
    const naiveTurn = micros(process.cpuUsage(naiveStart));

    if (turn >= measuredFrom) {
      kaiwaCpu += kaiwaTurn;
      naiveCpu += naiveTurn;
      measured++;
    }
  }
}
console.log(
  `page size ${pageSize}: kaiwa's SQLite store ${(kaiwaCpu / measured).toFixed(0)} µs CPU per turn, ` +
    `the naive store ${(naiveCpu / measured).toFixed(0)} µs (turns ${measuredFrom}–${turns} of ${sources} conversations)`,
);
await store.close();
naive.close();
await rm(directory, { recursive: true, force: true });
