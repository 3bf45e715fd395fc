import { createHmac, timingSafeEqual } from 'node:crypto';

/** The cookie that carries an inspector session once the token was given (docs/security.md). */
export const SESSION_COOKIE = 'kaiwa_inspect';

export interface InspectorSessionOptions {
  /** `INSPECT_TOKEN`: the key of every session, so changing it ends them all. */
  readonly token: string;
  /** How long a session lasts (ms). */
  readonly lifetimeMs: number;
  readonly now?: () => number;
}

/**
 * Inspector sessions without server state: a session is its start time and an HMAC of it keyed
 * by the token, so it survives a restart, expires by itself, never contains the token, and
 * cannot be made without it.
 * @example
 * const sessions = new InspectorSessions({ token, lifetimeMs: 12 * 3600_000 });
 * response.cookie(SESSION_COOKIE, sessions.issue(), { httpOnly: true, sameSite: 'strict' });
 * sessions.isValid(cookieValue); // true until it expires
 */
export class InspectorSessions {
  private readonly now: () => number;

  constructor(private readonly options: InspectorSessionOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A new session's cookie value. */
  issue(): string {
    const startedAt = String(this.now());
    return `${startedAt}.${this.mac(startedAt)}`;
  }

  /** True for a session this token issued that has not expired. */
  isValid(value: string | undefined): boolean {
    const match = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
    if (!match) return false;
    const [, startedAt, presented] = match as unknown as [string, string, string];
    const age = this.now() - Number(startedAt);
    if (age < 0 || age > this.options.lifetimeMs) return false;
    return timingSafeEqual(Buffer.from(presented), Buffer.from(this.mac(startedAt)));
  }

  private mac(startedAt: string): string {
    return createHmac('sha256', this.options.token)
      .update(`kaiwa-inspector-session:${startedAt}`)
      .digest('base64url');
  }
}
