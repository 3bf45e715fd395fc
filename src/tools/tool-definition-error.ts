/** A tool that cannot be registered: a duplicate name, a bad schema or an example that breaks it. */
export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError';
  constructor(
    readonly toolName: string,
    readonly reason: string,
  ) {
    super(`tool "${toolName}": ${reason}`);
  }
}
