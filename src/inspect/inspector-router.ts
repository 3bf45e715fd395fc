import express, { type Response, type Router } from 'express';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMessage } from '../domain/index.js';
import { startEventStream } from '../line/event-stream.js';
import type { HistoryWindow, LoadedSource, SourceSummary, StoredInboxItem } from '../persistence/index.js';
import type { ChartExport } from './chart-export.js';
import { activeStateIds, stateValueText } from './chart-model.js';
import { conversationView, sourceRow, type SnapshotLike, type SourceRow } from './conversation-view.js';
import { inspectorGuard, type InspectorAccess } from './inspector-access.js';
import type { JournalEntry } from './journal-store.js';
import type { Redactor } from './redaction.js';
import type { TransitionJournal } from './transition-journal.js';

const assetsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');
/** The list shows this many sources at most, the most recently active first. */
const MAX_SOURCES = 500;
const HEARTBEAT_MS = 15_000;
/** How much stored history the inspector shows of a conversation that is not in memory. */
const STORED_HISTORY: HistoryWindow = { maxEntries: 200, maxBytes: 256 * 1024 };
/** A list row needs the newest entries only: a stored 1:1 chat is named by its newest user entry. */
const LIST_HISTORY: HistoryWindow = { maxEntries: 8, maxBytes: 32 * 1024 };
/** The head alone. */
const NO_HISTORY: HistoryWindow = { maxEntries: 0, maxBytes: 0 };

export interface InspectorRouterOptions {
  /** The live actors (the actor host). */
  readonly host: {
    liveSources(): string[];
    snapshotOf(sourceId: string): SnapshotLike | undefined;
    /** Where the source's lifecycle machine stands (docs/runtime.md, "Ownership"). */
    lifecycleOf?(sourceId: string): ({ value: unknown } & Record<string, unknown>) | undefined;
  };
  /** The stored sources (the store port). */
  readonly store: {
    listSources(limit?: number): Promise<SourceSummary[]>;
    load(sourceId: string, window: HistoryWindow): Promise<LoadedSource>;
    inbox(sourceId: string, limit?: number): Promise<StoredInboxItem[]>;
  };
  readonly journal: TransitionJournal;
  readonly access: InspectorAccess;
  readonly redact: Redactor;
  /** The machine drawn from its definition (computed once). */
  readonly chart: () => Promise<ChartExport>;
  /** The source lifecycle machine, drawn the same way. */
  readonly lifecycleChart?: () => Promise<ChartExport>;
  /** A name to show when the conversation itself knows none (the emulator's user names). */
  readonly displayName?: (sourceId: string) => string | undefined;
  /**
   * How long the list of stored sources is reused (ms; default 0, read on every request). On
   * DynamoDB it is a scan of the table, and a busy bot has the page reload the list every half
   * second: `createInspection` reuses it for 30 s there. Each source's own row and detail are
   * always read afresh.
   */
  readonly storedListMs?: number;
}

/** Far above LINE's ids (33 characters) and below any file name's limit. */
const MAX_SOURCE_ID_LENGTH = 100;

/**
 * The live inspector, mounted at `/inspect`: the page, its static assets, and a JSON and
 * server-sent-events API. Every answer is redacted; everything but the assets (static code)
 * is behind the access rule (a session cookie after the token was given once; docs/security.md).
 *
 * - `POST /login` the token from the login form → the session cookie
 * - `GET /` the page; `GET /assets/*` its JS and CSS
 * - `GET /api/chart.svg`, `/api/chart.mmd`, `/api/machine.json` (Stately), `/api/chart.json` (model)
 * - `GET /api/lifecycle.svg`, `/api/lifecycle.mmd` the source lifecycle machine
 * - `GET /api/sources` live and stored sources; `GET /api/sources/:sourceId` one in full;
 *   `GET /api/sources/:sourceId/row` one list row
 * - `GET /api/stream` journal entries of every source as they happen (SSE)
 */
export function inspectorRouter(options: InspectorRouterOptions): Router {
  const { host, store, journal, redact } = options;
  let storedList: { readonly at: number; readonly summaries: Promise<SourceSummary[]> } | undefined;
  const router = express.Router();
  const guard = inspectorGuard(options.access);
  router.use(guard.requireEnabled);
  router.use('/assets', express.static(assetsDir, { index: false, fallthrough: false }));
  router.post('/login', express.urlencoded({ extended: false, limit: '4kb' }), guard.login);
  router.use(guard.requireSession);
  // No source has such an id (LINE's are 33 characters): answered before any store or journal
  // file is touched — a file name that long fails, and the failure named the journal's path.
  router.param('sourceId', (_request, response, next, sourceId: string) => {
    if (sourceId.length <= MAX_SOURCE_ID_LENGTH) return next();
    sendJson(response, { message: 'no conversation with such an id' }, 404);
  });

  router.get('/', (_request, response) => response.sendFile(path.join(assetsDir, 'inspector.html')));

  router.get('/api/chart.svg', async (_request, response) => {
    response.type('image/svg+xml').send((await options.chart()).svg);
  });
  router.get('/api/chart.mmd', async (_request, response) => {
    response.type('text/plain').send((await options.chart()).mermaid);
  });
  router.get('/api/machine.json', async (_request, response) => {
    response.json((await options.chart()).stately);
  });
  router.get('/api/chart.json', async (_request, response) => {
    response.json((await options.chart()).model);
  });

  router.get('/api/lifecycle.svg', async (_request, response) => {
    if (!options.lifecycleChart) return void response.sendStatus(404);
    response.type('image/svg+xml').send((await options.lifecycleChart()).svg);
  });
  router.get('/api/lifecycle.mmd', async (_request, response) => {
    if (!options.lifecycleChart) return void response.sendStatus(404);
    response.type('text/plain').send((await options.lifecycleChart()).mermaid);
  });

  router.get('/api/sources', async (_request, response) => {
    const live = new Set(host.liveSources());
    const stored = new Map((await storedSources()).map((summary) => [summary.sourceId, summary]));
    // The most recently active first, and only those shown are read: a store may hold many.
    const activity = (sourceId: string) =>
      Math.max(journal.lastActivity(sourceId) ?? 0, stored.get(sourceId)?.updatedAt ?? 0);
    const ids = [...new Set([...live, ...stored.keys()])]
      .sort((a, b) => activity(b) - activity(a) || a.localeCompare(b))
      .slice(0, MAX_SOURCES);
    const rows = await Promise.all(
      ids.map((sourceId) => rowOf(sourceId, live.has(sourceId), undefined, stored.get(sourceId))),
    );
    const sources = rows
      .filter((row): row is SourceRow => row !== undefined)
      .sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0) || a.sourceId.localeCompare(b.sourceId));
    sendJson(response, { sources });
  });

  router.get('/api/sources/:sourceId', async (request, response) => {
    const { sourceId } = request.params;
    const [{ found, summary, waiting }, entries] = await Promise.all([
      readSource(sourceId, STORED_HISTORY),
      journal.entries(sourceId),
    ]);
    if (!found) {
      sendJson(response, { message: `no conversation ${sourceId}` }, 404);
      return;
    }
    const { model } = await options.chart();
    sendJson(response, {
      source: await rowOf(sourceId, found.live, found, summary),
      // Messages wait for their turn in the inbox (not in the conversation), one turn each.
      view: { ...conversationView(model.id, found.snapshot), queued: queuedOf(waiting, found.snapshot) },
      lifecycle: await lifecycleView(sourceId),
      journal: entries.map((entry) => withActiveIds(model.id, entry)),
    });
  });

  // One row of the list, fresh: the page asks for it when a turn starts or ends, instead of
  // reading every source again (on DynamoDB the list is a scan).
  router.get('/api/sources/:sourceId/row', async (request, response) => {
    const { sourceId } = request.params;
    const { found, summary } = await readSource(sourceId, LIST_HISTORY);
    const row = await rowOf(sourceId, found?.live ?? false, found, summary);
    if (!row) {
      sendJson(response, { message: `no conversation ${sourceId}` }, 404);
      return;
    }
    sendJson(response, { source: row });
  });

  router.get('/api/stream', async (request, response) => {
    const { model } = await options.chart();
    const send = startEventStream(response);
    const unsubscribe = journal.subscribe((sourceId, entry) => {
      const message = redact({ sourceId, entry: withActiveIds(model.id, entry) });
      send(`event: entry\ndata: ${JSON.stringify(message)}\n\n`);
    });
    const heartbeat = setInterval(() => send(': ping\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    request.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
    });
  });

  return router;

  async function snapshotOf(sourceId: string, window: HistoryWindow): Promise<FoundSnapshot | undefined> {
    const live = host.snapshotOf(sourceId);
    if (live) return { snapshot: live, live: true };
    return storedSnapshot(await store.load(sourceId, window));
  }

  /** The most recently updated stored sources, read at most once per `storedListMs`. */
  function storedSources(): Promise<SourceSummary[]> {
    const now = Date.now();
    if (storedList === undefined || now - storedList.at >= (options.storedListMs ?? 0)) {
      const summaries = store.listSources(MAX_SOURCES);
      storedList = { at: now, summaries };
      // A failed read is not kept: the next request reads again.
      summaries.catch(() => {
        if (storedList?.summaries === summaries) storedList = undefined;
      });
    }
    return storedList.summaries;
  }

  /**
   * One source as its detail and its row show it, each read once: the snapshot (the live actor's,
   * else the stored head's with `window` of history) and what the store records of it — owner,
   * lease and the inbox (its first 100 items).
   */
  async function readSource(sourceId: string, window: HistoryWindow) {
    const live = host.snapshotOf(sourceId);
    const [loaded, waiting] = await Promise.all([
      store.load(sourceId, live ? NO_HISTORY : window),
      store.inbox(sourceId, 100),
    ]);
    const found: FoundSnapshot | undefined = live ? { snapshot: live, live: true } : storedSnapshot(loaded);
    const { head } = loaded;
    const summary: SourceSummary | undefined = head && {
      sourceId,
      version: head.version,
      ...(head.owner && { owner: head.owner }),
      busy: head.busy,
      inboxSize: waiting.length,
      updatedAt: head.updatedAt,
    };
    return { found, summary, waiting };
  }

  async function rowOf(
    sourceId: string,
    live: boolean,
    known?: FoundSnapshot,
    summary?: SourceSummary,
  ): Promise<SourceRow | undefined> {
    const found = known ?? (await snapshotOf(sourceId, LIST_HISTORY));
    if (!found && !summary) return undefined;
    const lastActivity = Math.max(
      journal.lastActivity(sourceId) ?? 0,
      found?.updatedAt ?? 0,
      summary?.updatedAt ?? 0,
    );
    const fallbackName = options.displayName?.(sourceId);
    const lifecycle = host.lifecycleOf?.(sourceId);
    return {
      ...sourceRow(sourceId, found?.snapshot, {
        live,
        ...(lastActivity > 0 && { lastActivity }),
        ...(fallbackName && { fallbackName }),
      }),
      ...(lifecycle && { lifecycle: stateValueText(lifecycle.value) }),
      ...(summary?.owner && {
        owner: summary.owner.ownerId,
        leaseUntil: summary.owner.heartbeatAt + summary.owner.leaseMs,
      }),
      ...(summary && { inboxSize: summary.inboxSize }),
    };
  }

  async function lifecycleView(sourceId: string) {
    const lifecycle = host.lifecycleOf?.(sourceId);
    if (!lifecycle || !options.lifecycleChart) return null;
    const { model } = await options.lifecycleChart();
    return {
      ...lifecycle,
      state: stateValueText(lifecycle.value),
      activeStateIds: activeStateIds(model.id, lifecycle.value),
    };
  }

  function sendJson(response: Response, body: unknown, status = 200) {
    response.status(status).json(redact(body));
  }
}

/** A conversation's snapshot as the inspector found it: the live actor's, or a stored head's. */
interface FoundSnapshot {
  readonly snapshot: SnapshotLike;
  readonly live: boolean;
  readonly updatedAt?: number;
}

/** A stored head with the history window loaded with it (a head holds none), or nothing without a snapshot. */
function storedSnapshot({ head, history }: LoadedSource): FoundSnapshot | undefined {
  if (!head?.snapshot) return undefined;
  const context = { ...(head.snapshot.context as object), history: history.map((record) => record.entry) };
  return { snapshot: { ...head.snapshot, context }, live: false, updatedAt: head.updatedAt };
}

/** The inbox's messages but those of the running turn (they leave the inbox at its first checkpoint). */
function queuedOf(waiting: readonly StoredInboxItem[], snapshot: SnapshotLike) {
  const turn = (snapshot.context as { turn?: { messages?: { eventId?: string }[] } | null } | undefined)
    ?.turn;
  const running = new Set((turn?.messages ?? []).map((message) => message.eventId));
  return waiting.flatMap(({ item }) =>
    item && isMessage(item) && !running.has(item.eventId)
      ? [
          [
            {
              eventId: item.eventId,
              sender: item.sender?.displayName ?? item.sender?.userId ?? null,
              text: item.text,
              timestamp: item.timestamp,
            },
          ],
        ]
      : [],
  );
}

function withActiveIds(machineId: string, entry: JournalEntry) {
  return { ...entry, activeStateIds: activeStateIds(machineId, entry.toValue) };
}
