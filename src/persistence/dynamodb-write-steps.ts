// The crash-test seam of every write (`SourceStoreOptions.onWriteStep`): named steps between
// the requests a write sends. Most writes are one request: `<operation>:commit` before it and
// `<operation>:committed` after it. A fault injected at `committed` leaves the write done.

export interface WriteSteps {
  /** Announces a request that comes before the commit (a page written ahead, say). */
  before(name: string): void;
  /** Sends the request that makes the write visible, announced before and after. */
  commit<T>(send: () => Promise<T>): Promise<T>;
  /** Announces work that finishes a committed write (deletes that did not fit its transaction). */
  after(name: string): void;
}

export function writeSteps(onWriteStep: (step: string) => void, operation: string): WriteSteps {
  return {
    before: (name) => onWriteStep(`${operation}:${name}`),
    commit: async (send) => {
      onWriteStep(`${operation}:commit`);
      const result = await send();
      onWriteStep(`${operation}:committed`);
      return result;
    },
    after: (name) => onWriteStep(`${operation}:${name}`),
  };
}
