import type { Clock } from '../../domain/index.js';

/** What LINE remembers of a request it accepted under a retry key. */
export interface AcceptedRequest {
  readonly requestId: string;
  readonly acceptedAt: number;
  readonly sentMessages: readonly { id: string; quoteToken?: string }[];
}

/**
 * The retry keys LINE has accepted. A key is honoured for 24 hours after its first request
 * ("Retrying a failed API request", docs/line.md); after that LINE forgets it and the same key
 * sends again. Time is the emulator's clock, so tests can step over the window.
 */
export class RetryKeyLedger {
  static readonly WINDOW_MS = 24 * 60 * 60 * 1000;
  private readonly accepted = new Map<string, AcceptedRequest>();

  constructor(private readonly clock: Clock) {}

  /** The request this key was accepted for, while the key is still honoured. */
  find(retryKey: string): AcceptedRequest | undefined {
    const request = this.accepted.get(retryKey);
    if (!request) return undefined;
    if (this.clock.now() - request.acceptedAt < RetryKeyLedger.WINDOW_MS) return request;
    this.accepted.delete(retryKey);
    return undefined;
  }

  accept(retryKey: string, request: Omit<AcceptedRequest, 'acceptedAt'>): void {
    this.forgetExpired();
    this.accepted.set(retryKey, { ...request, acceptedAt: this.clock.now() });
  }

  private forgetExpired(): void {
    const now = this.clock.now();
    for (const [key, request] of this.accepted) {
      if (now - request.acceptedAt >= RetryKeyLedger.WINDOW_MS) this.accepted.delete(key);
    }
  }
}
