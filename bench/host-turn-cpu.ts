import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaults } from '../src/defaults/index.js';
import { openSqliteSourceStore, type SourceStore } from '../src/persistence/index.js';
import { createTestHost, messageFor, userSourceNumber } from '../test/support/host-harness.js';
import { EchoReplyModel } from './bench-model.js';

// kaiwa's own CPU per turn without HTTP, webhook or LINE client: an `ActorHost` (the source and
// conversation machines, the store) answering through a recording delivery, with the bench's
// zero-latency model. The runtime bench's figures also carry express, the webhook checks and
// the LINE SDK; this one isolates the actors, which is where issue 13's gap is (docs/PERFORMANCE.md).
// `npx tsx bench/host-turn-cpu.ts [sqlite|memory]`; compare two builds by running it on each,
// alternately, several times: a single run moves by ±15 % on a loaded machine.

const storeName = process.argv[2] ?? 'sqlite';
const sources = Number(process.env.BENCH_SOURCES ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 60);
const warmupRounds = 10;

const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-host-cpu-'));
const store: SourceStore | undefined =
  storeName === 'sqlite'
    ? await openSqliteSourceStore({
        file: path.join(directory, 'kaiwa.db'),
        // As npm start runs it; 0: SQLite's own checkpoints, in the commits.
        checkpointIntervalMs: Number(
          process.env.BENCH_CHECKPOINT_MS ?? defaults.store.sqliteCheckpointIntervalMs,
        ),
      })
    : undefined;
const { host, delivery } = createTestHost({
  model: new EchoReplyModel(),
  ...(store && { store }),
  host: { settings: { maxModelCallsPerMinute: 0 } },
});

/** Every source gets its next message at once; the round ends when every source has settled. */
async function round(turn: number) {
  await Promise.all(
    Array.from({ length: sources }, (_, index) =>
      host.accept([messageFor(userSourceNumber(index), `message ${turn}`)]),
    ),
  );
  await host.whenSettled();
}

for (let turn = 1; turn <= warmupRounds; turn++) await round(turn);
const before = process.cpuUsage();
for (let turn = warmupRounds + 1; turn <= warmupRounds + rounds; turn++) await round(turn);
const cpu = process.cpuUsage(before);
const turns = sources * rounds;
if (delivery.requests.length !== sources * (warmupRounds + rounds)) {
  throw new Error(`${delivery.requests.length} replies for ${sources * (warmupRounds + rounds)} turns`);
}
console.log(
  `${storeName}: ${((cpu.user + cpu.system) / turns).toFixed(0)} µs CPU per turn ` +
    `(user ${(cpu.user / turns).toFixed(0)}, system ${(cpu.system / turns).toFixed(0)}), ` +
    `${sources} sources × ${rounds} rounds after ${warmupRounds}, Node.js ${process.version}`,
);
await host.shutdown(1000);
await store?.close();
await rm(directory, { recursive: true, force: true });
