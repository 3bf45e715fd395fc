import { messagingApi } from '@line/bot-sdk';
import { defaults } from '../defaults/index.js';
import type { TurnActivityListener } from '../actors/index.js';
import type { Source } from '../domain/index.js';
import type { Logger } from '../logging/index.js';
import { scopedClient } from './sdk-http-client.js';

export interface LoadingAnimationOptions {
  /** Routed through the LINE transport, a call still running when its turn ends is aborted. */
  readonly client: messagingApi.MessagingApiClient;
  readonly logger: Logger;
  /** Shown only when a turn still runs after this long (ms), default 1 s. */
  readonly delayMs?: number;
  /** How long each animation lasts: a multiple of 5 from 5 to 60 (LINE's rule), default 20. */
  readonly seconds?: number;
}

/**
 * LINE's loading animation while a turn runs — only in 1:1 chats (LINE refuses it for groups
 * and rooms), only after a short delay so quick answers do not flicker, renewed until the turn
 * ends. Sending a message ends it on LINE's side.
 */
export class LoadingAnimation implements TurnActivityListener {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /**
   * Per chat whose animation was shown, aborted when its turn ends: no animation call outlives
   * the turn. Made only when one is shown (most turns answer before the delay).
   */
  private readonly turns = new Map<string, AbortController>();
  private readonly delayMs: number;
  private readonly seconds: number;

  constructor(private readonly options: LoadingAnimationOptions) {
    this.delayMs = options.delayMs ?? defaults.line.loadingDelayMs;
    this.seconds = options.seconds ?? defaults.line.loadingSeconds;
    if (this.seconds % 5 !== 0 || this.seconds < 5 || this.seconds > 60) {
      throw new RangeError(`loading seconds must be a multiple of 5 from 5 to 60 (got ${this.seconds})`);
    }
  }

  turnStarted(source: Source): void {
    if (source.kind !== 'user') return;
    this.endTurn(source.id);
    this.schedule(source.id, this.delayMs);
  }

  turnEnded(source: Source): void {
    this.endTurn(source.id);
  }

  private endTurn(chatId: string) {
    const timer = this.timers.get(chatId);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(chatId);
    this.turns.get(chatId)?.abort(new Error('the turn ended'));
    this.turns.delete(chatId);
  }

  private schedule(chatId: string, delayMs: number) {
    const timer = setTimeout(() => {
      this.show(chatId);
      // Renew a little before it runs out, for as long as the turn runs.
      this.schedule(chatId, Math.max(1000, (this.seconds - 1) * 1000));
    }, delayMs);
    timer.unref();
    this.timers.set(chatId, timer);
  }

  private show(chatId: string) {
    let turn = this.turns.get(chatId);
    if (!turn) this.turns.set(chatId, (turn = new AbortController()));
    const signal = turn.signal;
    const shown = scopedClient(this.options.client, { signal }).showLoadingAnimation({
      chatId,
      loadingSeconds: this.seconds,
    });
    shown.catch((error: unknown) => {
      // A turn that ended first has nothing to animate: not a failure.
      if (signal?.aborted) return;
      this.options.logger.warn('loading animation failed', { sourceId: chatId, error });
    });
  }
}
