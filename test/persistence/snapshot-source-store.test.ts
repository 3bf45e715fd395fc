import { MemoryStore, SnapshotSourceStore } from '../../src/persistence/index.js';
import { sourceStoreConformance } from './source-store.conformance.js';

// The port over a first-wave store, which the Lambda worker and STORE=file use until their
// native adapters replace it: the same suite as every source store, on the first-wave memory
// store. (Over the file and DynamoDB stores it inherits their gaps: claims that never expire
// by the given clock, sources with only inbox items missing from `listSources`, and on files
// ids that look like paths.)
sourceStoreConformance('snapshot (over the first-wave memory store)', (options) => {
  const inner = new MemoryStore({
    claimTtlMs: options.claimTtlMs,
    now: () => options.clock.now(),
    ...(options.maxInbox !== undefined && { maxInbox: options.maxInbox }),
  });
  return Promise.resolve({
    open: (instance) =>
      Promise.resolve(new SnapshotSourceStore(inner, { now: () => options.clock.now(), ...instance })),
  });
});
