import { KaiwaError } from '../errors/index.js';

const marker = Symbol.for('kaiwa.error.ToolDefinitionError');

/** A tool that cannot be registered: a duplicate name, a bad schema or an example that breaks it. */
export class ToolDefinitionError extends KaiwaError {
  private readonly [marker] = true;
  override readonly name = 'ToolDefinitionError' as const;
  constructor(
    readonly toolName: string,
    readonly reason: string,
  ) {
    super(`tool "${toolName}": ${reason}`);
  }

  /** True for a `ToolDefinitionError` from any copy of kaiwa (see `KaiwaError.isInstance`). */
  static override isInstance(value: unknown): value is ToolDefinitionError {
    return KaiwaError.hasMarker(value, marker);
  }
}
