import { describeError, type Logger } from '../logging/index.js';

export interface ProcessGuardOptions {
  readonly logger: Logger;
  /**
   * Called once after an uncaught exception has been logged: stop in order (the inbox is
   * durable, so a restart loses nothing) rather than run on in a state nobody can vouch for.
   */
  readonly onUncaughtException: () => void;
}

/**
 * The last line of defence of `npm start`: a promise rejection nobody handled is logged with its
 * context (name, message, stack, code, cause — never a payload) and the process keeps running, so
 * a network failure some library forgot to catch cannot end it. An uncaught exception is logged
 * the same way, then handed to `onUncaughtException`. Returns a function that removes the guards.
 */
export function installProcessGuards(options: ProcessGuardOptions): () => void {
  const { logger } = options;
  const onRejection = (reason: unknown) => {
    logger.error('unhandled promise rejection; kaiwa keeps running', { error: describeError(reason) });
  };
  let fatal = false;
  const onException = (error: unknown, origin: string) => {
    logger.error('uncaught exception; kaiwa stops in order', { error: describeError(error), origin });
    if (fatal) return;
    fatal = true;
    options.onUncaughtException();
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
