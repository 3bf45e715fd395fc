/**
 * A source still fails after its last scheduled retry. Thrown from the worker so that the
 * asynchronous invocation fails for good and Lambda puts the retry event, with this error, in
 * the dead-letter queue; the source's inbox keeps its messages.
 */
export class RetriesExhaustedError extends Error {
  override readonly name = 'RetriesExhaustedError';
  constructor(
    readonly sourceId: string,
    readonly attempt: number,
  ) {
    super(`source ${sourceId} still fails after scheduled retry ${attempt}`);
  }
}
