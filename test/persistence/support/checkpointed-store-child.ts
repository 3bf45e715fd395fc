import { openSqliteSourceStore } from '../../../src/persistence/index.js';

// Opens the SQLite store with its checkpointer thread, writes, and closes it as the last thing the
// process does: `closed` is printed only if the close waited for the thread instead of the
// process ending under it (the file named by argv[2]).
const store = await openSqliteSourceStore({ file: process.argv[2]!, checkpointIntervalMs: 100 });
await store.accept({
  eventId: 'closing-event',
  source: { kind: 'user', id: 'U' + '1'.repeat(32) },
  text: 'hello',
  timestamp: Date.now(),
});
await store.close();
process.stdout.write('closed\n');
