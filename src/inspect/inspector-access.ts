import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Who may open the inspector: conversations are private. */
export interface InspectorAccess {
  /** Off (404) unless in local emulator mode or a token is set. */
  readonly enabled: boolean;
  /** When set, every request needs it: `Authorization: Bearer <token>` or `?token=<token>`. */
  readonly token?: string;
}

/**
 * The rule: on in local emulator mode (the server binds 127.0.0.1 there); anywhere else only
 * with `INSPECT_TOKEN`. A token, once set, is required in emulator mode too.
 */
export function inspectorAccess(options: {
  emulatorMode: boolean;
  token?: string | undefined;
}): InspectorAccess {
  return {
    enabled: options.emulatorMode || options.token !== undefined,
    ...(options.token !== undefined && { token: options.token }),
  };
}

/** Express middleware enforcing the rule: 404 when off, 401 without the right token. */
export function requireInspectorAccess(access: InspectorAccess): RequestHandler {
  const expected = access.token === undefined ? undefined : digest(access.token);
  return (request: Request, response: Response, next: NextFunction) => {
    // The token may sit in the URL: keep it out of caches and other sites' referrers.
    response.set({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    if (!access.enabled) {
      response.status(404).json({
        message: 'The inspector is off: it runs in local emulator mode, or anywhere with INSPECT_TOKEN set.',
      });
      return;
    }
    if (expected) {
      const presented = presentedToken(request);
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        response.set('www-authenticate', 'Bearer realm="kaiwa inspector"');
        response.status(401).json({
          message:
            'The inspector needs INSPECT_TOKEN: send "Authorization: Bearer <token>" or add ?token=<token>.',
        });
        return;
      }
    }
    next();
  };
}

function presentedToken(request: Request): string | undefined {
  const header = request.get('authorization');
  const bearer = header && /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
  if (bearer) return bearer;
  const query: unknown = request.query.token;
  return typeof query === 'string' && query !== '' ? query : undefined;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
