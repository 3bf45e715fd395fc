import path from 'node:path';
import type { Router } from 'express';
import type { AnyStateMachine, InspectionEvent } from 'xstate';
import type { KaiwaConfig } from '../config/index.js';
import type { Clock } from '../domain/index.js';
import type { LineEmulator } from '../line/emulator/line-emulator.js';
import type { Logger } from '../logging/index.js';
import { sourceMachine } from '../actors/index.js';
import { conversationMachine } from '../machines/index.js';
import { exportChart, type ChartExport } from './chart-export.js';
import { conversationSummary } from './conversation-view.js';
import { FileJournalStore } from './file-journal-store.js';
import { inspectorAccess, type InspectorAccess } from './inspector-access.js';
import { inspectorRouter, type InspectorRouterOptions } from './inspector-router.js';
import { MemoryJournalStore, type JournalBounds, type JournalStore } from './journal-store.js';
import { createRedactor, type Redactor } from './redaction.js';
import { connectStatelyInspector } from './stately-inspector.js';
import { TransitionJournal } from './transition-journal.js';

/** Entries kept per source, and the sources whose journals are kept (the most recently written). */
export const JOURNAL_BOUNDS = {
  file: { entriesPerSource: 500, sources: 1_000 },
  memory: { entriesPerSource: 500, sources: 100 },
} as const satisfies Record<string, JournalBounds>;

export interface InspectionOptions {
  readonly config: KaiwaConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly emulator?: LineEmulator | undefined;
  /** Defaults to the conversation machine. */
  readonly machine?: AnyStateMachine;
  /** Defaults to a file journal under `DATA_DIR/journal` with `STORE=sqlite`, memory otherwise. */
  readonly journalStore?: JournalStore;
  /** Loads `@statelyai/inspect` (tests pass a fake). */
  readonly importModule?: (name: string) => Promise<unknown>;
}

/** The inspector's part of a running kaiwa. */
export interface Inspection {
  readonly access: InspectorAccess;
  readonly journal: TransitionJournal;
  readonly redact: Redactor;
  /** The actor host's `inspect` hook; undefined when nothing listens. */
  readonly inspect: ((sourceId: string, event: InspectionEvent) => void) | undefined;
  /** The router to mount at `/inspect`. */
  router(sources: Pick<InspectorRouterOptions, 'host' | 'store'>): Router;
  /** Writes what the journal still holds. */
  close(): Promise<void>;
}

/**
 * Sets up the inspector from the configuration: who may open it, where transition journals
 * are kept, the redaction of every secret the configuration knows, and the optional link to
 * Stately's hosted inspector.
 * @example
 * const inspection = await createInspection({ config, clock, logger, emulator });
 * const host = new ActorHost({ ..., inspect: inspection.inspect });
 * app.use('/inspect', inspection.router({ host, store }));
 */
export async function createInspection(options: InspectionOptions): Promise<Inspection> {
  const { config, logger } = options;
  const access = inspectorAccess({
    emulatorMode: config.line.mode === 'emulator',
    token: config.inspect.token,
    sessionLifetimeMs: config.inspect.sessionLifetimeMs,
  });
  const redact = createRedactor([
    config.inspect.token,
    config.line.mode === 'channel' ? config.line.channelSecret : undefined,
    config.line.mode === 'channel' ? config.line.channelAccessToken : undefined,
    options.emulator?.channelSecret,
    options.emulator?.channelAccessToken,
    config.gemini?.apiKey,
  ]);
  const journal = new TransitionJournal({
    store:
      options.journalStore ??
      (config.store.kind === 'sqlite'
        ? new FileJournalStore(path.join(config.store.dataDir, 'journal'), { ...JOURNAL_BOUNDS.file, logger })
        : new MemoryJournalStore(JOURNAL_BOUNDS.memory)),
    clock: options.clock,
    logger,
    summarize: conversationSummary,
  });
  const stately = config.inspect.stately
    ? await connectStatelyInspector({
        logger,
        redact,
        ...(options.importModule && { importModule: options.importModule }),
      })
    : undefined;

  const machine = options.machine ?? conversationMachine;
  let chart: Promise<ChartExport> | undefined;
  let lifecycleChart: Promise<ChartExport> | undefined;
  const record = access.enabled
    ? (sourceId: string, event: InspectionEvent) => journal.record(sourceId, event)
    : undefined;
  const inspect =
    record && stately
      ? (sourceId: string, event: InspectionEvent) => {
          record(sourceId, event);
          stately(event);
        }
      : (record ?? (stately && ((_sourceId: string, event: InspectionEvent) => stately(event))));

  return {
    access,
    journal,
    redact,
    inspect,
    router: (sources) =>
      inspectorRouter({
        ...sources,
        journal,
        access,
        redact,
        // A scan of the table on DynamoDB: at most one per half minute (SQLite reads an index).
        storedListMs: config.store.kind === 'dynamodb' ? 30_000 : 0,
        chart: () => (chart ??= exportChart(machine)),
        lifecycleChart: () => (lifecycleChart ??= exportChart(sourceMachine)),
        ...(options.emulator && { displayName: emulatorNames(options.emulator) }),
      }),
    close: () => journal.close(),
  };
}

/**
 * In the emulator, what LINE would answer: a user's profile name, a group's summary name.
 * Rooms have no name on LINE, so they keep their id.
 */
function emulatorNames(emulator: LineEmulator): (sourceId: string) => string | undefined {
  return (sourceId) => {
    const answer = sourceId.startsWith('C') ? emulator.groupSummary(sourceId) : emulator.profile(sourceId);
    const name = answer.status === 200 ? (answer.body.groupName ?? answer.body.displayName) : undefined;
    return typeof name === 'string' ? name : undefined;
  };
}
