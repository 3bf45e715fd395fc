/**
 * Faults the emulator's LINE API plays on the bot's next calls: LINE's 429s, a 5xx, or a
 * connection dropped without an answer. A fault can strike before the call takes effect, or
 * after it (`delivered`): LINE documents that a 5xx or a timeout may hide a delivered message,
 * and that case is the one a delivery policy must get right (docs/line.md, "The emulator").
 */
export type FaultKind = 'too-many-requests' | 'server-error' | 'drop-connection';

export interface FaultRequest {
  readonly kind: FaultKind;
  /** How many matching calls the fault strikes (default 1). */
  readonly times?: number;
  /** A path such as `/v2/bot/message/push`, matching it and the paths below it; all calls when absent. */
  readonly endpoint?: string;
  /** For `server-error`: the status, 500 to 599 (default 500). */
  readonly status?: number;
  /** For `too-many-requests`: LINE's monthly-limit 429 instead of the rate limit. */
  readonly monthlyLimit?: boolean;
  /** For `server-error` and `drop-connection`: the call takes effect first, then fails. */
  readonly delivered?: boolean;
}

export interface Fault {
  readonly id: number;
  readonly kind: FaultKind;
  readonly endpoint?: string;
  readonly status: number;
  readonly monthlyLimit: boolean;
  readonly delivered: boolean;
  remaining: number;
}

/** What a fault answers: a status and LINE's body, or no answer at all. */
export type FaultAnswer =
  | { readonly drop: true }
  | { readonly drop: false; readonly status: number; readonly body: { message: string } };

/** The messages LINE's error table gives for these statuses. */
const RATE_LIMIT_MESSAGE = 'The API rate limit has been exceeded. Try again later.';
const MONTHLY_LIMIT_MESSAGE = 'You have reached your monthly limit.';
const SERVER_ERROR_MESSAGE = 'An internal server error occurred.';

export class FaultInjector {
  private readonly faults: Fault[] = [];
  private sequence = 0;
  private readonly listeners = new Set<() => void>();

  /** Queues a fault; returns it, or a reason it cannot be played. */
  inject(request: FaultRequest): Fault | string {
    const times = request.times ?? 1;
    if (!Number.isInteger(times) || times < 1 || times > 1000)
      return 'times must be an integer from 1 to 1000';
    if (request.endpoint !== undefined && !request.endpoint.startsWith('/v2/bot/'))
      return 'endpoint must be a LINE API path such as /v2/bot/message/push';
    const status = request.kind === 'too-many-requests' ? 429 : (request.status ?? 500);
    if (request.kind === 'server-error' && (!Number.isInteger(status) || status < 500 || status > 599))
      return 'status must be 500 to 599';
    const delivered = request.delivered ?? false;
    if (delivered && request.kind === 'too-many-requests') return 'a 429 is never delivered';
    const fault: Fault = {
      id: ++this.sequence,
      kind: request.kind,
      ...(request.endpoint !== undefined && { endpoint: request.endpoint }),
      status,
      monthlyLimit: request.kind === 'too-many-requests' && (request.monthlyLimit ?? false),
      delivered,
      remaining: times,
    };
    this.faults.push(fault);
    this.changed();
    return fault;
  }

  /** The faults still waiting for calls. */
  pending(): readonly Fault[] {
    return this.faults.filter((fault) => fault.remaining > 0);
  }

  clear(): void {
    this.faults.length = 0;
    this.changed();
  }

  /** Called for every LINE API call: the fault it meets, if any, which is then spent once. */
  take(path: string): Fault | undefined {
    const fault = this.faults.find(
      (candidate) =>
        candidate.remaining > 0 &&
        (candidate.endpoint === undefined ||
          path === candidate.endpoint ||
          path.startsWith(`${candidate.endpoint.replace(/\/$/, '')}/`)),
    );
    if (!fault) return undefined;
    fault.remaining--;
    if (fault.remaining === 0) this.faults.splice(this.faults.indexOf(fault), 1);
    this.changed();
    return fault;
  }

  /** Tells the page when the queue changes. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** What LINE answers for a fault. */
export function faultAnswer(fault: Fault): FaultAnswer {
  if (fault.kind === 'drop-connection') return { drop: true };
  const message =
    fault.kind === 'server-error'
      ? SERVER_ERROR_MESSAGE
      : fault.monthlyLimit
        ? MONTHLY_LIMIT_MESSAGE
        : RATE_LIMIT_MESSAGE;
  return { drop: false, status: fault.status, body: { message } };
}
