import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/inspect/index.js';
import { ScriptedModel, callReply, callTools, type ModelRequest } from '../../src/model/index.js';
import type { KaiwaRuntime } from '../../src/server/kaiwa-runtime.js';
import {
  MemorySourceStore,
  type HistoryWindow,
  type LoadedSource,
  type SourceSummary,
} from '../../src/persistence/index.js';
import {
  emulatorChatId,
  gatedModel,
  gatedTool,
  sayInEmulator,
  startEmulatorKaiwa,
  until,
} from './inspect-harness.js';

interface SourceRowJson {
  sourceId: string;
  kind: string;
  displayName?: string;
  state: string;
  live: boolean;
  lastActivity?: number;
  lastTurn?: { stopReason: string; answered: boolean | null; noAnswer?: string; noticeSent?: boolean };
  owner?: string;
  leaseUntil?: number;
  inboxSize?: number;
}
interface DetailJson {
  source: SourceRowJson;
  view: {
    state: string;
    activeStateIds: string[];
    iteration: { modelCalls: number; maxModelCalls: number };
    queued: { sender: string; text: string }[][];
    pendingTools: { name: string; args: unknown }[];
    history: { role: string }[];
  };
  journal: (JournalEntry & { activeStateIds: string[] })[];
}

const runtimes: KaiwaRuntime[] = [];
const directories: string[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return (await response.json()) as T;
}

describe('the inspector API in emulator mode', () => {
  it('lists live sources with kind, display name, current state and last activity', async () => {
    const gated = gatedModel();
    const runtime = await startEmulatorKaiwa({ model: gated.model });
    runtimes.push(runtime);
    await sayInEmulator(runtime.url, 'hi', { kind: 'user', name: 'Aiko' }, 'Aiko');
    await sayInEmulator(runtime.url, 'hello all', { kind: 'group', name: 'Trip' }, 'Ken');
    const userId = await emulatorChatId(runtime.url, 'user', 'Aiko');
    const groupId = await emulatorChatId(runtime.url, 'group', 'Trip');
    await until(() => runtime.host.snapshotOf(groupId)?.matches('generate'));

    const { sources } = await json<{ sources: SourceRowJson[] }>(`${runtime.url}/inspect/api/sources`);

    expect(sources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          sourceId: userId,
          kind: 'user',
          displayName: 'Aiko',
          state: 'generate',
          live: true,
        }),
        expect.objectContaining({ sourceId: groupId, kind: 'group', state: 'generate', live: true }),
      ]),
    );
    expect(sources.find((row) => row.sourceId === groupId)?.displayName).toBe('Trip');
    for (const row of sources) expect(row.lastActivity).toBeGreaterThan(Date.now() - 60_000);
    gated.release();
    await runtime.host.whenSettled();
  });

  it("lists how each source's last turn ended — answered, or why not — and the owner while a turn runs", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const model = new ScriptedModel(
      [
        async (request: ModelRequest) => {
          const text = request.history.findLast((entry) => entry.role === 'user')?.text;
          if (text === 'not for you') return callTools(['skip', { reason: 'talking to Ken' }]);
          if (text === 'wait') await gate;
          return callReply(`re: ${text}`);
        },
      ],
      { repeatLast: true },
    );
    const runtime = await startEmulatorKaiwa({ model });
    runtimes.push(runtime);
    await sayInEmulator(runtime.url, 'hi', { kind: 'user', name: 'Aiko' }, 'Aiko');
    await sayInEmulator(runtime.url, 'not for you', { kind: 'group', name: 'Trip' }, 'Ken');
    await runtime.host.whenSettled();
    await sayInEmulator(runtime.url, 'wait', { kind: 'user', name: 'Mia' }, 'Mia');
    const [aiko, trip, mia] = await Promise.all([
      emulatorChatId(runtime.url, 'user', 'Aiko'),
      emulatorChatId(runtime.url, 'group', 'Trip'),
      emulatorChatId(runtime.url, 'user', 'Mia'),
    ]);
    await until(() => runtime.host.snapshotOf(mia)?.matches('generate'));

    const { sources } = await json<{ sources: SourceRowJson[] }>(`${runtime.url}/inspect/api/sources`);
    const row = (sourceId: string) => sources.find((candidate) => candidate.sourceId === sourceId);

    expect(row(aiko)?.lastTurn).toMatchObject({ stopReason: 'final-tool', answered: true });
    expect(row(trip)?.lastTurn).toMatchObject({
      stopReason: 'final-tool',
      answered: false,
      noAnswer: 'skip',
      noticeSent: false,
    });
    expect(row(aiko)?.owner).toBeUndefined();
    expect(row(mia)?.lastTurn).toBeUndefined();
    expect(row(mia)?.owner).toEqual(expect.any(String));
    expect(row(mia)?.leaseUntil).toBeGreaterThan(Date.now());
    // One source's detail says the same (the inspector's lifecycle panel shows it).
    const detail = await json<DetailJson>(`${runtime.url}/inspect/api/sources/${mia}`);
    // The message stays in the inbox until the turn's intent is written.
    expect(row(mia)?.inboxSize).toBe(1);
    expect(detail.source).toMatchObject({ owner: row(mia)?.owner, inboxSize: 1 });
    expect(detail.source.leaseUntil).toBeGreaterThan(Date.now());
    // And so does its row alone, which the page asks for when a turn starts or ends.
    const rowOf = async (sourceId: string) =>
      (await json<{ source: SourceRowJson }>(`${runtime.url}/inspect/api/sources/${sourceId}/row`)).source;
    expect(await rowOf(mia)).toMatchObject({ owner: row(mia)?.owner, inboxSize: 1, state: 'generate' });
    open();
    await runtime.host.whenSettled();
    const after = await rowOf(mia);
    expect(after.lastTurn).toMatchObject({ answered: true });
    expect(after.owner).toBeUndefined();
    expect((await fetch(`${runtime.url}/inspect/api/sources/U${'0'.repeat(32)}/row`)).status).toBe(404);
  });

  it('shows one source: state, history, queued messages, iteration and pending tools, and its journal', async () => {
    const slow = gatedTool();
    const model = new ScriptedModel([
      callTools(['slow_lookup', { query: 'Kyoto' }]),
      callReply('Kyoto is lovely'),
      callReply('and you too'),
    ]);
    const runtime = await startEmulatorKaiwa({ model, tools: [slow.tool] });
    runtimes.push(runtime);
    await sayInEmulator(runtime.url, 'tell me about Kyoto');
    const sourceId = await emulatorChatId(runtime.url, 'user', 'Aiko');
    await until(() => runtime.host.snapshotOf(sourceId)?.matches({ toolCall: 'running' }));
    await sayInEmulator(runtime.url, 'and also hi');

    const detail = await until(async () => {
      const current = await json<DetailJson>(`${runtime.url}/inspect/api/sources/${sourceId}`);
      return current.view.queued.length > 0 ? current : undefined;
    });

    expect(detail.view.state).toBe('toolCall.running');
    expect(detail.view.activeStateIds).toEqual(['conversation.toolCall', 'conversation.toolCall.running']);
    expect(detail.view.iteration).toEqual({ modelCalls: 1, maxModelCalls: 10 });
    expect(detail.view.pendingTools).toEqual([
      expect.objectContaining({ name: 'slow_lookup', args: { query: 'Kyoto' } }),
    ]);
    expect(detail.view.queued.flat().map((message) => message.text)).toEqual(['and also hi']);
    expect(detail.view.history.map((entry) => entry.role)).toEqual(['user', 'model']);
    expect(detail.journal.map((entry) => entry.to)).toEqual(
      expect.arrayContaining(['idle', 'receive', 'generate', 'toolCall.running']),
    );
    const last = detail.journal.at(-1)!;
    expect(last.activeStateIds).toContain('conversation.toolCall.running');

    slow.release();
    await runtime.host.whenSettled();
    const after = await json<DetailJson>(`${runtime.url}/inspect/api/sources/${sourceId}`);
    expect(after.view.state).toBe('idle');
    expect(after.view.pendingTools).toEqual([]);
    expect(after.journal.length).toBeGreaterThan(detail.journal.length);
  });

  it('serves the chart as SVG, Mermaid and Stately JSON, and 404 for an unknown source', async () => {
    const runtime = await startEmulatorKaiwa({ model: new ScriptedModel([]) });
    runtimes.push(runtime);
    const svg = await fetch(`${runtime.url}/inspect/api/chart.svg`);
    expect(svg.headers.get('content-type')).toContain('image/svg+xml');
    expect(await svg.text()).toContain('data-state-id="conversation.generate"');
    expect(await (await fetch(`${runtime.url}/inspect/api/chart.mmd`)).text()).toContain('stateDiagram-v2');
    expect(await json(`${runtime.url}/inspect/api/machine.json`)).toMatchObject({
      id: 'conversation',
      initial: 'idle',
    });
    expect((await fetch(`${runtime.url}/inspect/api/sources/Unobody`)).status).toBe(404);
  });
});

describe('a store with many sources', () => {
  it('lists the 500 most recently active, reading only those, each with a short window', async () => {
    const stored = Array.from({ length: 520 }, (_, index) => `U${String(index).padStart(32, '0')}`);
    // The memory store, with 520 stored sources more than it holds: their heads answer `load`.
    class ManyStoredSources extends MemorySourceStore {
      readonly windows: HistoryWindow[] = [];
      override async listSources(): Promise<SourceSummary[]> {
        const own = await super.listSources();
        const extra = stored.map((sourceId, index) => ({
          sourceId,
          version: 1,
          busy: false,
          inboxSize: 0,
          updatedAt: 1_700_000_000_000 + index,
        }));
        return [...own, ...extra];
      }
      override load(sourceId: string, window: HistoryWindow): Promise<LoadedSource> {
        const index = stored.indexOf(sourceId);
        if (index < 0) return super.load(sourceId, window);
        this.windows.push(window);
        const snapshot = { value: 'idle', context: { source: { kind: 'user', id: sourceId } } };
        const head = { sourceId, version: 1, fence: 1, machineVersion: 1, snapshot, lastSeq: 0, busy: false };
        return Promise.resolve({ head: { ...head, updatedAt: 1_700_000_000_000 + index }, history: [] });
      }
    }
    const store = new ManyStoredSources();
    const runtime = await startEmulatorKaiwa({ model: new ScriptedModel([callReply('hi')]), store });
    runtimes.push(runtime);

    const { sources } = await json<{ sources: SourceRowJson[] }>(`${runtime.url}/inspect/api/sources`);

    expect(sources).toHaveLength(500);
    expect(sources[0]?.sourceId).toBe(stored.at(-1));
    expect(sources.at(-1)?.sourceId).toBe(stored[20]);
    expect(store.windows).toHaveLength(500);
    expect(Math.max(...store.windows.map((window) => window.maxEntries))).toBeLessThanOrEqual(8);
  });
});

describe('stored conversations after a restart', () => {
  it('are listed as stored, and their journal — kept under DATA_DIR — replays every transition', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-inspect-'));
    directories.push(dataDir);
    const env = { STORE: 'sqlite', DATA_DIR: dataDir };
    const gated = gatedModel();
    gated.release();
    const first = await startEmulatorKaiwa({ model: gated.model, env });
    await sayInEmulator(first.url, 'remember me');
    const sourceId = await emulatorChatId(first.url, 'user', 'Aiko');
    await until(() => first.emulator!.entries().some((entry) => entry.from === 'bot'));
    await first.host.whenSettled();
    await first.close();

    const second = await startEmulatorKaiwa({ model: gated.model, env });
    runtimes.push(second);
    const { sources } = await json<{ sources: SourceRowJson[] }>(`${second.url}/inspect/api/sources`);
    const detail = await json<DetailJson>(`${second.url}/inspect/api/sources/${sourceId}`);

    expect(sources).toEqual([
      expect.objectContaining({ sourceId, kind: 'user', state: 'idle', live: false }),
    ]);
    expect(sources[0]!.lastActivity).toBeGreaterThan(0);
    expect(detail.source.live).toBe(false);
    expect(detail.view.history.length).toBeGreaterThanOrEqual(2);
    const path_ = detail.journal
      .filter((entry) => entry.kind === 'transition')
      .map((entry) => `${entry.from}→${entry.to}`);
    expect(path_).toEqual(
      expect.arrayContaining(['idle→receive', 'receive→generate', 'generate→toolCall.starting', 'done→idle']),
    );
    expect(detail.journal[0]).toMatchObject({ kind: 'start', to: 'idle' });
    expect(detail.journal.at(-1)).toMatchObject({ kind: 'stop' });
    for (const entry of detail.journal) expect(entry.activeStateIds.length).toBeGreaterThan(0);
  });

  // The journal is a file per source: before, an id longer than a file name may be answered 500
  // with an HTML page naming the journal's path on the server (ENAMETOOLONG).
  it.each([
    ['an id longer than a file name', 'U'.repeat(5000)],
    ['a path', '../../etc/passwd'],
    ['a NUL', '\u0000'],
  ])('answers 404 in JSON for %s, touching no file', async (_case, sourceId) => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'kaiwa-inspect-'));
    directories.push(dataDir);
    const runtime = await startEmulatorKaiwa({
      model: gatedModel().model,
      env: { STORE: 'sqlite', DATA_DIR: dataDir },
    });
    runtimes.push(runtime);

    for (const suffix of ['', '/row']) {
      const response = await fetch(
        `${runtime.url}/inspect/api/sources/${encodeURIComponent(sourceId)}${suffix}`,
      );
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(await response.text()).not.toContain(dataDir);
    }
  });
});
