/** A synchronous call (node:sqlite) as an async port promises: a throw becomes a rejection. */
export function settled<T>(body: () => T): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
