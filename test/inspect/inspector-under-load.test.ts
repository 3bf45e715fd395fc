import express from 'express';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createActor, createMachine } from 'xstate';
import { afterEach, describe, expect, it } from 'vitest';
import {
  exportChart,
  inspectorAccess,
  inspectorRouter,
  MemoryJournalStore,
  TransitionJournal,
} from '../../src/inspect/index.js';
import { createRedactor } from '../../src/inspect/redaction.js';
import { conversationMachine } from '../../src/machines/index.js';
import { MemorySourceStore } from '../../src/persistence/index.js';

// The inspector against what a busy bot with many chats brings: an event stream whose client
// stops reading (a stalled socket, a frozen tab), and a store with more sources than the list shows.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function inspectorServer(
  journal: TransitionJournal,
  options: { store?: MemorySourceStore; storedListMs?: number } = {},
) {
  const app = express();
  app.use(
    '/inspect',
    inspectorRouter({
      host: { liveSources: () => [], snapshotOf: () => undefined },
      store: options.store ?? new MemorySourceStore(),
      journal,
      access: inspectorAccess({ emulatorMode: true, sessionLifetimeMs: 60_000 }),
      redact: createRedactor([]),
      chart: () => exportChart(conversationMachine),
      ...(options.storedListMs !== undefined && { storedListMs: options.storedListMs }),
    }),
  );
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return (server.address() as AddressInfo).port;
}

describe("the inspector's event stream", () => {
  it('drops a client that stopped reading instead of buffering a busy journal for it', async () => {
    const journal = new TransitionJournal({ store: new MemoryJournalStore(), clock: { now: () => 1 } });
    const port = await inspectorServer(journal);
    const client = connect(port, '127.0.0.1');
    let received = 0;
    const ended = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.on('data', (chunk: Buffer) => (received += chunk.length));
    client.write('GET /inspect/api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 200)); // connected: `: connected`
    client.pause();

    // A busy bot: 120,000 steps (15,000 turns), each an entry on the stream — far more than the
    // kernel's socket buffers hold.
    const machine = createMachine({
      initial: 'a',
      states: { a: { on: { GO: 'b' } }, b: { on: { GO: 'a' } } },
    });
    const actor = createActor(machine, { inspect: (event) => journal.record('U1', event) }).start();
    let streamedBytes = 0;
    journal.subscribe((sourceId, entry) => (streamedBytes += JSON.stringify({ sourceId, entry }).length));
    for (let step = 0; step < 120_000; step++) {
      actor.send({ type: 'GO' });
      if (step % 1_000 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    actor.stop();

    client.resume();
    await ended;
    // Dropped: the client got what the kernel held and the server's bounded buffer, not all of it.
    expect(streamedBytes).toBeGreaterThan(20_000_000);
    expect(received).toBeLessThan(streamedBytes / 2);
  });
});

describe("the inspector's list of sources", () => {
  /** A memory store that counts the inspector's reads of its source list. */
  class CountingStore extends MemorySourceStore {
    readonly limits: (number | undefined)[] = [];
    override listSources(limit?: number) {
      this.limits.push(limit);
      return super.listSources(limit);
    }
  }
  const journal = () => new TransitionJournal({ store: new MemoryJournalStore(), clock: { now: () => 1 } });

  it('asks the store for the 500 most recent sources only, on every request by default', async () => {
    const store = new CountingStore();
    const port = await inspectorServer(journal(), { store });
    for (let request = 0; request < 2; request++)
      expect((await fetch(`http://127.0.0.1:${port}/inspect/api/sources`)).status).toBe(200);
    expect(store.limits).toEqual([500, 500]);
  });

  it('reuses the list for storedListMs (DynamoDB: a scan), however often the page reloads it', async () => {
    const store = new CountingStore();
    const port = await inspectorServer(journal(), { store, storedListMs: 30_000 });
    for (let request = 0; request < 5; request++)
      expect((await fetch(`http://127.0.0.1:${port}/inspect/api/sources`)).status).toBe(200);
    expect(store.limits).toEqual([500]);
  });
});
