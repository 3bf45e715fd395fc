import { ConfigError, loadConfig } from '../config/index.js';
import { createLogger } from '../logging/index.js';
import { startKaiwa, type KaiwaRuntime } from './kaiwa-runtime.js';
import { installProcessGuards } from './process-guard.js';
import { startFailureMessage } from './start-failure.js';

// `npm start`: the local runtime. Invalid configuration → one line naming the variable, exit 1.
async function main() {
  let config;
  try {
    config = loadConfig(process.env, { store: 'sqlite' });
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      process.stderr.write(`kaiwa: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });
  // The guards may fire before the runtime exists: `stop` closes whatever has started by then.
  const lifecycle: { runtime?: KaiwaRuntime; stopping: boolean } = { stopping: false };
  const stop = (reason: string, exitCode: number) => {
    if (lifecycle.stopping) return;
    lifecycle.stopping = true;
    logger.info('shutting down', { reason });
    (lifecycle.runtime?.close() ?? Promise.resolve()).then(
      () => process.exit(exitCode),
      (error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      },
    );
  };
  // Installed before anything starts: nothing the network does may end the process (docs/security.md).
  installProcessGuards({ logger, onUncaughtException: () => stop('uncaught exception', 1) });
  let runtime: KaiwaRuntime;
  try {
    runtime = await startKaiwa(config, { logger });
  } catch (error) {
    throw new Error(startFailureMessage(error, config), { cause: error });
  }
  lifecycle.runtime = runtime;
  if (runtime.emulator) {
    process.stdout.write(
      `\n  kaiwa is running: open ${runtime.url} to chat (LINE emulator, ${config.model} model)\n\n`,
    );
  }
  // The first signal lets turns in progress finish (up to KAIWA_SHUTDOWN_DEADLINE_MS); a second
  // one (Ctrl-C again) does not wait: what is durable stays, as after a crash.
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (!lifecycle.stopping) return stop(signal, 0);
    logger.warn('exiting now, without waiting for turns in progress', { reason: signal });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
}

main().catch((error: unknown) => {
  // A config error, a SQLite file held by another kaiwa, a store not there: one line says what to do.
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`kaiwa: ${message}\n`);
  process.exit(1);
});
