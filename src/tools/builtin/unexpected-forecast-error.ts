import { KaiwaError } from '../../errors/index.js';

const marker = Symbol.for('kaiwa.error.UnexpectedForecastError');

/** A j1 payload that lacks a field the report needs, or holds one of the wrong kind. */
export class UnexpectedForecastError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'UnexpectedForecastError' as const;
  constructor(readonly field: string) {
    super(`the j1 payload has no usable "${field}"`);
  }

  /** True for a `UnexpectedForecastError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is UnexpectedForecastError {
    return KaiwaError.hasMarker(value, marker);
  }
}
