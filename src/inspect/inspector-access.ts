import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { loginPage } from './inspector-login-page.js';
import { InspectorSessions, SESSION_COOKIE } from './inspector-session.js';

/** Who may open the inspector: conversations are private. */
export interface InspectorAccess {
  /** Off (404) unless in local emulator mode or a token is set. */
  readonly enabled: boolean;
  /**
   * When set, every request needs it: once (the login form or a `?token=` exchanged for a
   * session cookie), then the cookie; scripts may send `Authorization: Bearer <token>`.
   */
  readonly token?: string;
  /** How long a session cookie lasts (ms). */
  readonly sessionLifetimeMs: number;
}

/**
 * The rule: on in local emulator mode (the server binds 127.0.0.1 there); anywhere else only
 * with `INSPECT_TOKEN`. A token, once set, is required in emulator mode too.
 */
export function inspectorAccess(options: {
  emulatorMode: boolean;
  token?: string | undefined;
  sessionLifetimeMs: number;
}): InspectorAccess {
  return {
    enabled: options.emulatorMode || options.token !== undefined,
    ...(options.token !== undefined && { token: options.token }),
    sessionLifetimeMs: options.sessionLifetimeMs,
  };
}

/** The handlers that enforce the rule (docs/security.md, "Inspector"). */
export interface InspectorGuard {
  /** 404 when the inspector is off; everything else passes (the static assets hold no data). */
  readonly requireEnabled: RequestHandler;
  /**
   * 401 without a valid session cookie or bearer token. A `?token=` in a GET is never a
   * credential for the request itself: when right, it is exchanged for the cookie and the
   * browser is sent to the same address without it.
   */
  readonly requireSession: RequestHandler;
  /** `POST /login` with a urlencoded `token`: the cookie and a redirect to the page, or 401. */
  readonly login: RequestHandler;
}

/** Builds the {@link InspectorGuard} of one access rule. */
export function inspectorGuard(
  access: InspectorAccess,
  options: { now?: () => number } = {},
): InspectorGuard {
  const expected = access.token === undefined ? undefined : digest(access.token);
  const sessions =
    access.token === undefined
      ? undefined
      : new InspectorSessions({
          token: access.token,
          lifetimeMs: access.sessionLifetimeMs,
          ...(options.now && { now: options.now }),
        });
  const isToken = (presented: unknown) =>
    expected !== undefined && typeof presented === 'string' && timingSafeEqual(digest(presented), expected);

  const startSession = (request: Request, response: Response, location: string) => {
    response.cookie(SESSION_COOKIE, sessions!.issue(), {
      httpOnly: true,
      sameSite: 'strict',
      secure: isHttps(request),
      path: request.baseUrl || '/',
      maxAge: access.sessionLifetimeMs,
    });
    // 303: the browser follows with a GET, and the address it shows and keeps holds no token.
    response.redirect(303, location);
  };

  /** 401: a browser gets the login form (again, saying so when a token was wrong), a script JSON. */
  const refuse = (request: Request, response: Response, failed: boolean) => {
    response.set('www-authenticate', 'Bearer realm="kaiwa inspector"');
    if (request.accepts(['json', 'html']) === 'html') {
      response
        .status(401)
        .type('html')
        .send(loginPage(`${request.baseUrl}/login`, failed));
      return;
    }
    response.status(401).json({
      message:
        'The inspector needs INSPECT_TOKEN: log in at /inspect, or send "Authorization: Bearer <token>".',
    });
  };

  const requireEnabled: RequestHandler = (_request, response, next: NextFunction) => {
    // Keep conversations out of caches and other sites' referrers.
    response.set({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    if (!access.enabled) {
      response.status(404).json({
        message: 'The inspector is off: it runs in local emulator mode, or anywhere with INSPECT_TOKEN set.',
      });
      return;
    }
    next();
  };

  const requireSession: RequestHandler = (request, response, next) => {
    if (!sessions) return next();
    const queryToken: unknown = request.query.token;
    if (queryToken !== undefined) {
      if (request.method === 'GET' && isToken(queryToken))
        startSession(request, response, withoutToken(request));
      else refuse(request, response, true);
      return;
    }
    if (isToken(bearerOf(request)) || sessions.isValid(cookieOf(request, SESSION_COOKIE))) return next();
    refuse(request, response, false);
  };

  const login: RequestHandler = (request, response) => {
    const body = request.body as Record<string, unknown> | undefined;
    if (sessions && isToken(body?.token)) startSession(request, response, request.baseUrl || '/');
    else refuse(request, response, true);
  };

  return { requireEnabled, requireSession, login };
}

function bearerOf(request: Request): string | undefined {
  const header = request.get('authorization');
  return (header && /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim()) || undefined;
}

function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.get('cookie') ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * The connection is TLS, or a proxy in front says the browser's was (`X-Forwarded-Proto`). Trusting
 * the header is safe here: it can only make the cookie stricter (sent over https only).
 */
function isHttps(request: Request): boolean {
  const forwarded = request.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return request.secure || forwarded === 'https';
}

/** The request's own address (path and query, relative to the host) without `token`. */
function withoutToken(request: Request): string {
  const url = new URL(request.originalUrl, 'http://inspector.invalid');
  url.searchParams.delete('token');
  return `${url.pathname}${url.search}`;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
