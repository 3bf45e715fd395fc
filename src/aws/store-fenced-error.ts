import { KaiwaError } from '../errors/index.js';

const marker = Symbol.for('kaiwa.error.StoreFencedError');

/** A call to a store that was fenced off: its invocation is over. */
export class StoreFencedError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'StoreFencedError' as const;
  constructor() {
    super('this invocation is over: the store is fenced off');
  }

  /** True for a `StoreFencedError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is StoreFencedError {
    return KaiwaError.hasMarker(value, marker);
  }
}
