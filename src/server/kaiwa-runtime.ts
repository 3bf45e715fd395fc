import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StrandedWork, type ActorHost } from '../actors/index.js';
import { bot } from '../bot/index.js';
import { checkOwnTools, composeConversations, createModel, createStore } from '../composition/index.js';
import type { KaiwaConfig } from '../config/index.js';
import { systemClock, type Clock } from '../domain/index.js';
import { LineEmulator } from '../line/emulator/line-emulator.js';
import { slowWebhook } from '../line/emulator/emulator-controls-router.js';
import { emulatorRouter } from '../line/emulator/emulator-router.js';
import { LineSchemas, type Validation } from '../line/openapi/line-schemas.js';
import { webhookRouter } from '../line/webhook-router.js';
import { BotIdentity, botInfoLookup } from '../line/bot-identity.js';
import { defaults } from '../defaults/index.js';
import { createInspection } from '../inspect/index.js';
import { createLogger, type Logger } from '../logging/index.js';
import type { ModelPort } from '../model/index.js';
import type { SourceStore } from '../persistence/index.js';
import type { BackgroundWork, Tool } from '../tools/index.js';
import { openBackgroundLedger } from './background-ledger.js';
import { localHostOnly } from './local-host-only.js';
import { openLocalReminders } from './local-reminders.js';
import { openSharedTable } from './shared-table.js';

export { REMINDERS_FILE_NAME } from './local-reminders.js';
export { BACKGROUND_FILE_NAME } from './background-ledger.js';

/** Parts a caller (tests, the benchmark) may replace; everything else follows the config. */
export interface RuntimeOverrides {
  readonly store?: SourceStore;
  readonly model?: ModelPort;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** The bot's own tools instead of those of `src/bot`. */
  readonly tools?: readonly Tool[];
  /** The bot's persona instead of that of `src/bot` (`KAIWA_PERSONA_FILE` still wins). */
  readonly persona?: string;
}

export interface KaiwaRuntime {
  readonly url: string;
  readonly host: ActorHost;
  readonly emulator: LineEmulator | undefined;
  readonly logger: Logger;
  /** Stops taking requests, lets turns finish (or persists them), closes the server. */
  close(): Promise<void>;
}

/**
 * Starts kaiwa as one process: the express app (webhook, emulator), the actor host and the
 * store. In emulator mode it plays LINE itself, listens on 127.0.0.1 (`HOST`) and answers only
 * requests addressed to a local name.
 */
export async function startKaiwa(
  config: KaiwaConfig,
  overrides: RuntimeOverrides = {},
): Promise<KaiwaRuntime> {
  const tools = overrides.tools ?? bot.tools;
  // Checked again by the composition: here a bad bot stops the start before anything is opened.
  checkOwnTools(tools);
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  // On DynamoDB, the table every process shares holds the sources, the reminders and the
  // tools' background work, through one client.
  const sharedTable = openSharedTable(config);
  const store = overrides.store ?? (await createStore(config, logger, sharedTable?.client));
  const model = overrides.model ?? createModel(config, logger);
  const emulator = config.line.mode === 'emulator' ? new LineEmulator(clock) : undefined;
  // The emulator checks every request the bot sends and every webhook it builds against LINE's schemas.
  const schemas = emulator ? await LineSchemas.load() : undefined;
  // The live inspector: its transition journal listens to every conversation actor.
  const inspection = await createInspection({ config, clock, logger, emulator });

  // The tools' background work still running, noted for a report if this process dies.
  const backgroundLedger = await openBackgroundLedger(config, { clock, logger, sharedTable });
  // A due reminder enters its source's inbox like a message (the host exists by then).
  const reminders = await openLocalReminders(config, {
    deliver: (message) => host.accept([message]),
    clock,
    logger,
    sharedTable,
  });

  // Listen first: in emulator mode the LINE client must know this server's own address.
  const server = createServer({
    // Headers and body within the timeout, checked every second (Node.js checks every 30 s).
    requestTimeout: config.httpRequestTimeoutMs,
    headersTimeout: config.httpRequestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, config.httpRequestTimeoutMs),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const url = `http://${urlHost(address)}:${port}`;
  if (emulator && !isLoopback(address)) {
    logger.warn('emulator mode listens beyond this machine: the emulator and inspector have no login', {
      host: config.host,
    });
  }

  // In emulator mode this server plays LINE: the Messaging API and the content API are its own.
  // Tools, system prompt, LINE channel and host wiring are shared with the Lambda worker.
  const conversations = await composeConversations({
    config,
    store,
    model,
    line:
      config.line.mode === 'channel'
        ? {
            channelAccessToken: config.line.channelAccessToken,
            apiBaseUrl: config.line.apiBaseUrl,
            dataApiBaseUrl: config.line.dataApiBaseUrl,
          }
        : { channelAccessToken: emulator!.channelAccessToken, apiBaseUrl: url, dataApiBaseUrl: url },
    reminders: reminders.scheduler,
    // A tool's finished background work, like a reminder due, enters its source's inbox.
    acceptFinishedWork: (message) => host.accept([message]),
    ...(backgroundLedger && { backgroundLedger }),
    clock,
    logger,
    // The bot of `src/bot`: its tools and persona (README, "Your bot").
    tools,
    persona: overrides.persona ?? bot.persona,
  });
  const host = conversations.createHost({ inspect: inspection.inspect });
  // The webhook's `destination` must be this bot: the emulator's, or the channel's (getBotInfo, once).
  const botUserId = botUserIdOf(config, emulator, logger);

  const app = express();
  app.disable('x-powered-by');
  // Before every route: the emulator's pages, its LINE API, the webhook and the inspector.
  if (emulator) app.use(localHostOnly({ port, listenAddress: config.host, logger }));
  app.get('/healthz', (_request, response) => {
    response.json({
      status: 'ok',
      model: model.name,
      line: config.line.mode,
      liveSources: host.liveSources().length,
    });
  });
  // The emulator can play a bot that answers its webhooks late (past LINE's 2 s).
  if (emulator) app.post('/webhook', slowWebhook(emulator));
  app.use(
    webhookRouter({
      channelSecret: () =>
        config.line.mode === 'channel' ? config.line.channelSecret : emulator!.channelSecret,
      accept: (items) => host.accept(items),
      groupPolicy: { mode: config.lineBehaviour.groupAnswer, botName: config.lineBehaviour.botName },
      logger,
      botUserId,
      staleEventMs: config.lineBehaviour.staleEventMs,
      acceptDeadlineMs: config.lineBehaviour.webhookAcceptDeadlineMs,
      now: () => clock.now(),
    }),
  );
  app.use('/inspect', inspection.router({ host, store }));
  if (emulator) {
    app.use(
      emulatorRouter({
        emulator,
        webhookUrl: () => `${url}/webhook`,
        clock,
        logger,
        ...(schemas && {
          validateRequest: (method: string, path: string, body: unknown) =>
            problemsOf(schemas.validateRequest(method, path, body)),
          validateWebhook: (body: unknown) => problemsOf(schemas.validateWebhook(body)),
        }),
      }),
    );
  }
  server.on('request', app);
  // Work a crashed process left running is reported interrupted to its conversations — before
  // the recovery, which may run a call again: that call's new outcome is then claimed already.
  await conversations.background.reportLeftBehind();
  await host.recover();
  // Several processes share a DynamoDB table: what one that died for good held is taken up here.
  const strandedWorkSweep =
    config.store.kind === 'dynamodb'
      ? sweepStrandedWork(host, store, conversations.background, config.leaseMs, logger)
      : undefined;
  await reminders.start();
  logger.info('kaiwa is listening', {
    url,
    line: config.line.mode,
    model: model.name,
    store: config.store.kind,
  });

  return {
    url,
    host,
    emulator,
    logger,
    close: async () => {
      const closed = closeServer(server);
      clearInterval(strandedWorkSweep);
      reminders.stop();
      // Tools' background work gets half the deadline to finish into its inbox; what is left is
      // reported interrupted there, for the next start to tell its conversation.
      const { background } = conversations;
      await background.settled(config.shutdownDeadlineMs / 2);
      await background.interrupt();
      await host.shutdown(config.shutdownDeadlineMs);
      await inspection.close();
      server.closeAllConnections();
      await closed;
      reminders.close();
      backgroundLedger?.close();
      // Only the store this runtime opened: a store passed in belongs to the caller.
      if (!overrides.store) await store.close();
      sharedTable?.client.destroy();
    },
  };
}

function botUserIdOf(
  config: KaiwaConfig,
  emulator: LineEmulator | undefined,
  logger: Logger,
): () => Promise<string | undefined> {
  const known = emulator?.botUserId ?? config.lineBehaviour.botUserId;
  if (known !== undefined || config.line.mode !== 'channel') return () => Promise.resolve(known);
  const identity = new BotIdentity({
    lookup: botInfoLookup(
      { channelAccessToken: config.line.channelAccessToken, apiBaseUrl: config.line.apiBaseUrl },
      { logger, timeoutMs: config.lineBehaviour.requestTimeoutMs },
    ),
    logger,
    waitMs: defaults.line.botInfoWaitMs,
  });
  identity.warm();
  return () => identity.userId();
}

/**
 * Sweeps for stranded work every lease: a dead owner's lease has run out by the second sweep.
 * Background work a dead process left is reported first, as at a start.
 */
function sweepStrandedWork(
  host: ActorHost,
  store: SourceStore,
  background: BackgroundWork,
  leaseMs: number,
  logger: Logger,
) {
  const stranded = new StrandedWork({ store, adopt: (sourceId) => host.notify(sourceId), logger });
  const sweep = setInterval(() => void background.reportLeftBehind().then(() => stranded.sweep()), leaseMs);
  sweep.unref();
  return sweep;
}

/** How this process calls itself: a wildcard address is reached on loopback. */
function urlHost(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return address.includes(':') ? `[${address}]` : address;
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.');
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function problemsOf(validation: Validation): string[] {
  return validation.ok ? [] : validation.errors;
}
