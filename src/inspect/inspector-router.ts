import express, { type Response, type Router } from 'express';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoredConversation } from '../persistence/index.js';
import type { ChartExport } from './chart-export.js';
import { activeStateIds } from './chart-model.js';
import { conversationView, sourceRow, type SnapshotLike, type SourceRow } from './conversation-view.js';
import { inspectorGuard, type InspectorAccess } from './inspector-access.js';
import type { JournalEntry } from './journal-store.js';
import type { Redactor } from './redaction.js';
import type { TransitionJournal } from './transition-journal.js';

const assetsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');
/** The list shows this many sources at most, the most recently active first. */
const MAX_SOURCES = 500;
const HEARTBEAT_MS = 15_000;

export interface InspectorRouterOptions {
  /** The live actors (the actor host). */
  readonly host: {
    liveSources(): string[];
    snapshotOf(sourceId: string): SnapshotLike | undefined;
  };
  /** The stored conversations (the store port). */
  readonly store: {
    listSources(): Promise<string[]>;
    load(sourceId: string): Promise<StoredConversation | undefined>;
  };
  readonly journal: TransitionJournal;
  readonly access: InspectorAccess;
  readonly redact: Redactor;
  /** The machine drawn from its definition (computed once). */
  readonly chart: () => Promise<ChartExport>;
  /** A name to show when the conversation itself knows none (the emulator's user names). */
  readonly displayName?: (sourceId: string) => string | undefined;
}

/**
 * The live inspector, mounted at `/inspect`: the page, its static assets, and a JSON and
 * server-sent-events API. Every answer is redacted; everything but the assets (static code)
 * is behind the access rule (a session cookie after the token was given once; docs/security.md).
 *
 * - `POST /login` the token from the login form → the session cookie
 * - `GET /` the page; `GET /assets/*` its JS and CSS
 * - `GET /api/chart.svg`, `/api/chart.mmd`, `/api/machine.json` (Stately), `/api/chart.json` (model)
 * - `GET /api/sources` live and stored sources; `GET /api/sources/:sourceId` one in full
 * - `GET /api/stream` journal entries of every source as they happen (SSE)
 */
export function inspectorRouter(options: InspectorRouterOptions): Router {
  const { host, store, journal, redact } = options;
  const router = express.Router();
  const guard = inspectorGuard(options.access);
  router.use(guard.requireEnabled);
  router.use('/assets', express.static(assetsDir, { index: false, fallthrough: false }));
  router.post('/login', express.urlencoded({ extended: false, limit: '4kb' }), guard.login);
  router.use(guard.requireSession);

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

  router.get('/api/sources', async (_request, response) => {
    const live = new Set(host.liveSources());
    const ids = [...new Set([...live, ...(await store.listSources())])];
    const rows = await Promise.all(ids.map((sourceId) => rowOf(sourceId, live.has(sourceId))));
    const sources = rows
      .filter((row): row is SourceRow => row !== undefined)
      .sort((a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0) || a.sourceId.localeCompare(b.sourceId))
      .slice(0, MAX_SOURCES);
    sendJson(response, { sources });
  });

  router.get('/api/sources/:sourceId', async (request, response) => {
    const { sourceId } = request.params;
    const found = await snapshotOf(sourceId);
    if (!found) {
      sendJson(response, { message: `no conversation ${sourceId}` }, 404);
      return;
    }
    const { model } = await options.chart();
    const entries = await journal.entries(sourceId);
    sendJson(response, {
      source: await rowOf(sourceId, found.live, found),
      view: conversationView(model.id, found.snapshot),
      journal: entries.map((entry) => withActiveIds(model.id, entry)),
    });
  });

  router.get('/api/stream', async (request, response) => {
    const { model } = await options.chart();
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    response.write(': connected\n\n');
    const unsubscribe = journal.subscribe((sourceId, entry) => {
      const message = redact({ sourceId, entry: withActiveIds(model.id, entry) });
      response.write(`event: entry\ndata: ${JSON.stringify(message)}\n\n`);
    });
    const heartbeat = setInterval(() => response.write(': ping\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    request.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
    });
  });

  return router;

  async function snapshotOf(
    sourceId: string,
  ): Promise<{ snapshot: SnapshotLike; live: boolean; stored?: StoredConversation } | undefined> {
    const live = host.snapshotOf(sourceId);
    if (live) return { snapshot: live, live: true };
    const stored = await store.load(sourceId);
    return stored && { snapshot: stored.snapshot, live: false, stored };
  }

  async function rowOf(
    sourceId: string,
    live: boolean,
    known?: { snapshot: SnapshotLike; stored?: StoredConversation },
  ): Promise<SourceRow | undefined> {
    const found = known ?? (await snapshotOf(sourceId));
    if (!found) return undefined;
    const lastActivity = Math.max(journal.lastActivity(sourceId) ?? 0, found.stored?.updatedAt ?? 0);
    const fallbackName = options.displayName?.(sourceId);
    return sourceRow(sourceId, found.snapshot, {
      live,
      ...(lastActivity > 0 && { lastActivity }),
      ...(fallbackName && { fallbackName }),
    });
  }

  function sendJson(response: Response, body: unknown, status = 200) {
    response.status(status).json(redact(body));
  }
}

function withActiveIds(machineId: string, entry: JournalEntry) {
  return { ...entry, activeStateIds: activeStateIds(machineId, entry.toValue) };
}
