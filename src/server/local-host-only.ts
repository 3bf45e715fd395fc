import type { RequestHandler } from 'express';
import type { Logger } from '../logging/index.js';

export interface LocalHostOnlyOptions {
  /** The port the server listens on (the real one when `PORT=0`). */
  readonly port: number;
  /** `HOST`: when it is a specific address, that address names this server too. */
  readonly listenAddress: string;
  readonly logger: Logger;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::']);

/**
 * Emulator mode's defence against DNS rebinding (docs/security.md, "Local emulator"): a page on
 * another site whose name is made to resolve to 127.0.0.1 reaches this server, but its requests
 * still say `Host: attacker.example`. Only the loopback names (and the listen address itself, an
 * IP that no rebinding can forge) on this server's port pass; everything else gets 403, on every
 * route.
 */
export function localHostOnly(options: LocalHostOnlyOptions): RequestHandler {
  const names = [...LOOPBACK_NAMES];
  if (!WILDCARDS.has(options.listenAddress) && options.listenAddress !== 'localhost') {
    names.push(options.listenAddress.includes(':') ? `[${options.listenAddress}]` : options.listenAddress);
  }
  const allowed = new Set(names.map((name) => `${name}:${options.port}`.toLowerCase()));
  // Without a port a browser means the scheme's default.
  if (options.port === 80) for (const name of names) allowed.add(name.toLowerCase());

  return (request, response, next) => {
    const host = (request.get('host') ?? '').toLowerCase();
    if (allowed.has(host)) return next();
    options.logger.warn('request for another host refused (emulator mode answers local names only)', {
      host: host.slice(0, 100),
      method: request.method,
      path: request.path.slice(0, 100),
    });
    response.status(403).json({
      message: `kaiwa's emulator answers only localhost, 127.0.0.1 and [::1] on port ${options.port}`,
    });
  };
}
