import { ConfigError, loadConfig } from '../config/index.js';
import { startKaiwa } from './kaiwa-runtime.js';

// `npm start`: the local runtime. Invalid configuration → one line naming the variable, exit 1.
async function main() {
  let config;
  try {
    config = loadConfig(process.env, { store: 'file' });
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      process.stderr.write(`kaiwa: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const runtime = await startKaiwa(config);
  if (runtime.emulator) {
    process.stdout.write(
      `\n  kaiwa is running: open ${runtime.url} to chat (LINE emulator, ${config.model} model)\n\n`,
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info('shutting down', { signal });
    runtime.close().then(
      () => process.exit(0),
      (error: unknown) => {
        runtime.logger.error('shutdown failed', { error });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  const message =
    error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
  process.stderr.write(`kaiwa: ${message}\n`);
  process.exit(1);
});
