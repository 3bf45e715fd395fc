import { createHash } from 'node:crypto';
import {
  delayInWords,
  outcomeBytes,
  type Clock,
  type InboundMessage,
  type JsonObject,
  type Sender,
  type Source,
} from '../domain/index.js';
import { defaults } from '../defaults/index.js';
import type { Logger } from '../logging/index.js';
import { sleep } from '../timing/index.js';
import { isPlainJsonObject } from './plain-json.js';

/** The call whose result left work running (`background` in a tool's result). */
export interface BackgroundCall {
  readonly toolName: string;
  readonly source: Source;
  readonly sender?: Sender;
  /** The call's idempotency key: a call run again finishes into the same inbox item. */
  readonly idempotencyKey: string;
}

/** A value read back from a ledger that has what a call needs. */
export function isBackgroundCall(value: unknown): value is BackgroundCall {
  if (typeof value !== 'object' || value === null) return false;
  const call: Partial<Record<keyof BackgroundCall, unknown>> = value;
  const source: unknown = call.source;
  return (
    typeof call.toolName === 'string' &&
    typeof call.idempotencyKey === 'string' &&
    typeof source === 'object' &&
    source !== null &&
    'id' in source &&
    typeof source.id === 'string' &&
    'kind' in source &&
    typeof source.kind === 'string'
  );
}

/**
 * Where a process notes the pieces it runs, so that those a crash left running are reported
 * (`npm start` on SQLite: `DATA_DIR/background.db`, at its next start; on DynamoDB, `npm start` and
 * the Lambda worker: the shared table, by any process once the owner is gone). A piece is noted
 * before its call answers and struck once its outcome, or its interruption, is in the inbox.
 */
export interface BackgroundLedger {
  note(call: BackgroundCall): Promise<void>;
  strike(call: BackgroundCall): Promise<void>;
  /** The pieces noted and never struck: the process that ran them died first. */
  leftBehind(): Promise<readonly BackgroundCall[]>;
}

export interface BackgroundWorkOptions {
  /** Where a finished piece of work goes: the source's inbox (the host's locally, the store's on Lambda). */
  readonly deliver: (message: InboundMessage) => Promise<unknown>;
  /** Where running pieces are noted across a crash; none: a crash leaves no report. */
  readonly ledger?: BackgroundLedger;
  /** How long a piece of work may run before it is reported as timed out. */
  readonly timeoutMs: number;
  /** A finished outcome's JSON at most this many UTF-8 bytes (the tools' result limit). */
  readonly maxBytes: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The waits before each new try of an outcome the inbox refused (default: 1, 2 and 4 s). */
  readonly redeliverDelaysMs?: readonly number[];
}

/** What becomes of a piece's outcome when it comes. */
type Fate =
  /** It goes to the inbox. */
  | 'deliver'
  /** Nowhere: its source was forgotten meanwhile (unfollow, leave). */
  | 'drop'
  /** Nowhere: the piece was reported interrupted already, and its inbox item is claimed. */
  | 'reported';

/** A piece of work still running: its call, what becomes of its outcome, its note in the ledger. */
interface Piece {
  readonly call: BackgroundCall;
  fate: Fate;
  readonly noted: Promise<void>;
}

/** A call and the writing of its note in the ledger, which its strike waits for. */
type NotedCall = Pick<Piece, 'call' | 'noted'>;

/** The note of a call an earlier process left: written long ago. */
const NOTED_BEFORE: Promise<void> = Promise.resolve();

/** What every log line of a piece says of it. */
function logFieldsOf(call: BackgroundCall) {
  return { tool: call.toolName, sourceId: call.source.id };
}

/** The error a piece still running when its process stops reports (`interrupt`). */
export const INTERRUPTED_OUTCOME = {
  error:
    'the background work was interrupted before it finished: its process stopped; it can be started again',
} as const;

/**
 * The work tools leave running after their call has answered. Each piece's outcome — what it
 * resolved to, or an error the model can read — enters its source's inbox as a `toolFinished`
 * event and starts a turn there, answered by push (docs/design-notes.md, "Background work").
 * A host waits for what still runs before it stops (`settled`), then reports what is left as
 * interrupted (`interrupt`); what a process that dies left running its ledger tells
 * (`reportLeftBehind`, by the next start or another process).
 */
export class BackgroundWork {
  /** Each piece still running, by the promise of its end. */
  private readonly running = new Map<Promise<void>, Piece>();

  constructor(private readonly options: BackgroundWorkOptions) {}

  /** How many pieces still run. */
  get pending(): number {
    return this.running.size;
  }

  /**
   * Follows `work` to its end and delivers its outcome; never throws. Resolves once the piece is
   * noted in the ledger (or its note failed, logged): the call answers "started" only then, so a
   * crash after the model heard it finds the piece there.
   */
  start(call: BackgroundCall, work: PromiseLike<unknown>): Promise<void> {
    const { logger } = this.options;
    const log = logFieldsOf(call);
    logger.debug('background work started', log);
    const piece: Piece = { call, fate: 'deliver', noted: this.note(call) };
    const finished: Promise<void> = this.outcomeOf(call, work)
      .then(async (outcome) => {
        if (piece.fate === 'drop') {
          logger.info('background work finished for a forgotten source: dropped', log);
          return;
        }
        if (piece.fate === 'reported') {
          logger.info('background work finished after it was reported interrupted: dropped', log);
          return;
        }
        if (!(await this.deliverOutcome(piece, outcome))) return;
        logger.info('background work finished', log);
        await this.strike(piece);
      })
      .catch((error: unknown) =>
        logger.error('background work finished, but its outcome was not kept', { ...log, error }),
      )
      .finally(() => this.running.delete(finished));
    this.running.set(finished, piece);
    return piece.noted;
  }

  /**
   * Reports the pieces a process left running when it died (the ledger's), as interrupted, and
   * strikes them: their models were told only that they started. A start calls it once its host
   * takes messages (on DynamoDB, every sweep and worker invocation too). Resolves with how many
   * were reported; never throws.
   */
  async reportLeftBehind(): Promise<number> {
    const { ledger, logger } = this.options;
    if (!ledger) return 0;
    let left: readonly BackgroundCall[];
    try {
      left = await ledger.leftBehind();
    } catch (error) {
      logger.error('background work left by an earlier process could not be read', { error });
      return 0;
    }
    const now = this.options.clock.now();
    const reported = await Promise.all(
      left.map((call) =>
        this.report(
          { call, noted: NOTED_BEFORE },
          now,
          'background work left running by a process that died: reported interrupted',
        ),
      ),
    );
    return reported.filter(Boolean).length;
  }

  /**
   * The source was forgotten (unfollow, leave): what its work still running finishes is not
   * delivered, as its reminders are cancelled. Only this process's work: another's reports.
   */
  abandon(sourceId: string): void {
    for (const piece of this.running.values()) {
      if (piece.call.source.id !== sourceId || piece.fate === 'drop') continue;
      piece.fate = 'drop';
      // Struck now: a crash or a stop before it finishes must not report it to the forgotten chat.
      void this.strike(piece);
    }
  }

  /**
   * The process is stopping with work still running (its shutdown deadline, the end of a Lambda
   * invocation): each piece not yet reported is reported now as interrupted, so that its model
   * can tell the user instead of leaving them waiting. A piece that finishes after all is
   * dropped, its inbox item being claimed. Resolves with how many were reported; never throws.
   */
  async interrupt(): Promise<number> {
    const pieces = [...this.running.values()].filter((piece) => piece.fate === 'deliver');
    const now = this.options.clock.now();
    const reported = await Promise.all(
      pieces.map((piece) => {
        piece.fate = 'reported';
        return this.report(piece, now, 'background work interrupted: reported to its conversation');
      }),
    );
    return reported.filter(Boolean).length;
  }

  /**
   * Hands a finished piece's outcome to its inbox, trying again after each of the redeliver
   * delays when the store refuses it: a full disk or a throttled table must not lose a result
   * the user waits for. False when the piece was reported or dropped meanwhile (nothing to do);
   * the last refusal rejects, and the piece stays in the ledger for the next start to report.
   */
  private async deliverOutcome(piece: Piece, outcome: JsonObject): Promise<boolean> {
    const delays = this.options.redeliverDelaysMs ?? defaults.tools.backgroundRedeliverDelaysMs;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.options.deliver(finishedMessage(piece.call, outcome, this.options.clock.now()));
        return true;
      } catch (error) {
        const delay = delays[attempt];
        if (delay === undefined) throw error;
        this.options.logger.warn(
          'background work finished, but the inbox refused its outcome; trying again',
          {
            ...logFieldsOf(piece.call),
            retryInMs: delay,
            error,
          },
        );
        await sleep(delay);
        if (piece.fate !== 'deliver') return false;
      }
    }
  }

  /** Puts the piece's interruption in its inbox, then strikes it from the ledger; false if not kept. */
  private async report(piece: NotedCall, now: number, message: string): Promise<boolean> {
    const log = logFieldsOf(piece.call);
    try {
      await this.options.deliver(finishedMessage(piece.call, INTERRUPTED_OUTCOME, now));
    } catch (error) {
      this.options.logger.error('background work interrupted, and its report was not kept', {
        ...log,
        error,
      });
      return false;
    }
    this.options.logger.warn(message, log);
    await this.strike(piece);
    return true;
  }

  /** Notes a piece in the ledger; a failure costs only its report after a crash, so it is logged. */
  private async note(call: BackgroundCall): Promise<void> {
    try {
      await this.options.ledger?.note(call);
    } catch (error) {
      this.options.logger.error('background work not noted: a crash now would leave no report', {
        ...logFieldsOf(call),
        error,
      });
    }
  }

  /** Strikes a piece from the ledger once its note is written; a failure is logged. */
  private async strike(piece: NotedCall) {
    await piece.noted;
    try {
      await this.options.ledger?.strike(piece.call);
    } catch (error) {
      this.options.logger.error(
        'background work not struck from its ledger (a report at the next start would find its inbox item claimed)',
        { ...logFieldsOf(piece.call), error },
      );
    }
  }

  /** Resolves when nothing runs, or after `withinMs` (real time) with whatever still runs left running. */
  async settled(withinMs = Infinity): Promise<void> {
    const until = Date.now() + withinMs;
    while (this.running.size > 0) {
      const left = until - Date.now();
      if (left <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.running.keys()]),
        new Promise((resolve) => (timer = setTimeout(resolve, Math.min(left, 2 ** 31 - 1)))),
      ]);
      clearTimeout(timer);
    }
  }

  /** What the work resolved to when it is plain JSON within bounds, else an error for the model. */
  private async outcomeOf(call: BackgroundCall, work: PromiseLike<unknown>): Promise<JsonObject> {
    const { timeoutMs, maxBytes, logger } = this.options;
    const log = logFieldsOf(call);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed out'>((resolve) => {
      timer = setTimeout(() => resolve('timed out'), timeoutMs);
      timer.unref();
    });
    try {
      const value = await Promise.race([work, timedOut]);
      if (value === 'timed out') {
        logger.warn('background work timed out', { ...log, timeoutMs });
        return {
          error: `the background work did not finish within ${delayInWords(timeoutMs)}`,
        };
      }
      if (!isPlainJsonObject(value)) {
        logger.warn('background work finished with no plain JSON object', log);
        return { error: 'the background work finished with a result that could not be read' };
      }
      const bytes = outcomeBytes({ response: value });
      if (bytes > maxBytes) {
        logger.warn('background work finished with too large a result', { ...log, bytes, maxBytes });
        return {
          error: `the background work's result was ${bytes} bytes, more than the ${maxBytes} allowed`,
        };
      }
      return value;
    } catch (error) {
      // The details are for the log; the model gets a reason it can pass on.
      logger.warn('background work failed', { ...log, error });
      return { error: 'the background work failed' };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The inbox message of a finished piece of work: a `toolFinished` event in the name of whoever
 * made the call, its text the tool's name and outcome. Its event id comes from the call, so work
 * finished twice (its call run again after a restart) is claimed once.
 */
export function finishedMessage(
  call: BackgroundCall,
  outcome: JsonObject,
  finishedAt: number,
): InboundMessage {
  const key = createHash('sha256').update(call.idempotencyKey).digest('hex').slice(0, 32);
  return {
    eventId: `tool:${call.source.id}:${key}`,
    source: call.source,
    ...(call.sender && { sender: { userId: call.sender.userId } }),
    text: `${call.toolName}: ${JSON.stringify(outcome)}`,
    timestamp: finishedAt,
    lineEvent: 'toolFinished',
  };
}
