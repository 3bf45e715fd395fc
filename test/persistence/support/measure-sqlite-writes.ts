import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HistoryEntry, InboundMessage, JsonObject } from '../../../src/domain/index.js';
import { openSqliteSourceStore, type HistoryRecord, type Ownership } from '../../../src/persistence/index.js';

// Bytes the SQLite store writes per simple reply turn (docs/persistence.md, "Figures"):
//   node --import tsx --disable-warning=ExperimentalWarning test/persistence/support/measure-sqlite-writes.ts [pageSize]
// A turn is accept + the intent checkpoint (head, user and model entries, inbox delete) + the
// sent-marker checkpoint (head, tool entry). Logical bytes: the JSON and keys handed to SQLite.
// Physical: bytes passed to write(2) (/proc/self/io wchar), WAL frames and checkpoints into the
// main file included; and the growth of the files.

const pageSize = Number(process.argv[2] ?? 1024);
const sources = 100;
const turns = 40;
const directory = await mkdtemp(path.join(tmpdir(), 'kaiwa-measure-'));
const file = path.join(directory, 'kaiwa.db');
const store = await openSqliteSourceStore({ file, pageSize });
const owner = {
  ownerId: 'measure',
  host: 'bench',
  pid: process.pid,
  heartbeatAt: Date.now(),
  leaseMs: 60_000,
};

const wchar = () => Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
const fileBytes = () =>
  ['', '-wal'].reduce((total, suffix) => {
    try {
      return total + statSync(file + suffix).size;
    } catch {
      return total;
    }
  }, 0);
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

type Operation = 'accept' | 'intent' | 'sent';
const samples = new Map<string, { logical: number[]; physical: number[] }>();
function sample(turn: number, operation: Operation, logical: number, physical: number) {
  const key = `${turn}:${operation}`;
  const entry = samples.get(key) ?? { logical: [], physical: [] };
  entry.logical.push(logical);
  entry.physical.push(physical);
  samples.set(key, entry);
}

async function measured<T>(turn: number, operation: Operation, logical: number, write: () => Promise<T>) {
  const before = wchar();
  const result = await write();
  sample(turn, operation, logical, wchar() - before);
  return result;
}

const state = new Map<string, { ownership: Ownership; version: number; seq: number }>();
const signature = 'S'.repeat(1024); // a thought signature of 1 KB, stored once in its entry
const filesBefore = fileBytes();
const cpuBefore = process.cpuUsage();
const writesBefore = wchar();
const started = performance.now();

for (let turn = 1; turn <= turns; turn++) {
  for (let index = 0; index < sources; index++) {
    const sourceId = `U${String(index).padStart(32, '0')}`;
    const eventId = `01J${String(turn * sources + index).padStart(23, '0')}`;
    const text = 'What is the weather in Tokyo tomorrow?';
    const message: InboundMessage = {
      eventId,
      source: { kind: 'user', id: sourceId },
      sender: { userId: sourceId },
      text,
      timestamp: Date.now(),
      replyToken: 'r'.repeat(32),
      messageId: String(turn),
    };
    await measured(
      turn,
      'accept',
      bytes(eventId) * 2 + bytes(sourceId) + bytes(JSON.stringify(message)),
      () => store.accept(message),
    );
    let current = state.get(sourceId);
    if (!current) {
      const ownership = (await store.acquire(sourceId, owner, () => false))!;
      current = { ownership, version: ownership.version, seq: 0 };
      state.set(sourceId, current);
    }
    const [item] = await store.inbox(sourceId, 1);
    const reply = `Tomorrow in Tokyo: sunny, 24°C (turn ${turn}).`;
    const turnId = eventId;
    const userEntry: HistoryEntry = {
      role: 'user',
      eventId,
      text,
      timestamp: message.timestamp,
      messageId: String(turn),
    };
    const modelEntry: HistoryEntry = {
      role: 'model',
      turnId,
      calls: [{ id: `${turnId}-1`, name: 'reply', args: { message: reply } }],
      providerParts: [{ functionCall: { name: 'reply' }, thoughtSignature: signature }],
    };
    const toolEntry: HistoryEntry = {
      role: 'tool',
      turnId,
      results: [{ callId: `${turnId}-1`, name: 'reply', response: { delivered: true } }],
    };
    const head = (value: string, deliveries: number): JsonObject => ({
      status: 'active',
      value,
      context: {
        source: { kind: 'user', id: sourceId },
        turn:
          value === 'idle'
            ? null
            : {
                id: turnId,
                startedAt: message.timestamp,
                deadlineAt: message.timestamp + 60_000,
                texts: [reply],
                deliveries,
              },
        lastTurn: { id: turnId, stopReason: 'final-tool', modelCalls: 1 },
        usage: {
          minute: { at: 0, modelCalls: 1, tokens: 900 },
          day: { at: 0, modelCalls: turn, tokens: 900 * turn },
        },
        chat: {},
      },
      children: {},
    });
    const checkpoint = async (
      operation: Operation,
      snapshot: JsonObject,
      entries: HistoryEntry[],
      consumed: string[],
    ) => {
      const appended: HistoryRecord[] = entries.map((entry) => ({ seq: ++current.seq, entry }));
      const logical =
        bytes(JSON.stringify(snapshot)) +
        appended.reduce(
          (total, record) => total + bytes(JSON.stringify(record.entry)) + bytes(sourceId) + 8,
          0,
        ) +
        consumed.length * 8 +
        bytes(sourceId) +
        40;
      current.version = await measured(turn, operation, logical, () =>
        store.checkpoint({
          ownership: current.ownership,
          expectedVersion: current.version,
          machineVersion: 2,
          snapshot,
          busy: operation === 'intent',
          appended,
          removedSeqs: [],
          consumedKeys: consumed,
        }),
      );
    };
    await checkpoint('intent', head('delivering', 0), [userEntry, modelEntry], [item!.key]);
    await checkpoint('sent', head('idle', 1), [toolEntry], []);
  }
}

const elapsedMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const totalTurns = turns * sources;
const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;
const row = (turn: number) =>
  Object.fromEntries(
    (['accept', 'intent', 'sent'] as const).map((operation) => {
      const { logical, physical } = samples.get(`${turn}:${operation}`)!;
      return [operation, { logical: median(logical), physical: median(physical) }];
    }),
  );
console.log(
  JSON.stringify(
    {
      pageSize,
      sources,
      turns,
      turn1: row(1),
      turn40: row(40),
      perTurn: {
        physicalIncludingCheckpoints: Math.round((wchar() - writesBefore) / totalTurns),
        fileGrowth: Math.round((fileBytes() - filesBefore) / totalTurns),
        cpuMicroseconds: Math.round((cpu.user + cpu.system) / totalTurns),
        wallMicroseconds: Math.round((elapsedMs * 1000) / totalTurns),
      },
    },
    null,
    1,
  ),
);
await store.close();
await rm(directory, { recursive: true, force: true });
