import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_EVENT_STREAM_BUFFER_BYTES, startEventStream } from '../../src/line/event-stream.js';

describe('startEventStream (the emulator page and the inspector)', () => {
  it('drops a client that stops reading once its buffer passes the bound, and keeps one that reads', async () => {
    // By the client's port: the test knows which socket stalls.
    const streams = new Map<number, { response: ServerResponse; send: (text: string) => void }>();
    const server = createServer((request, response) =>
      streams.set(request.socket.remotePort!, { response, send: startEventStream(response) }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const open = () => {
      const socket = connect(port, '127.0.0.1');
      socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      return socket;
    };
    const stalled = open();
    stalled.pause();
    const reading = open();
    let read = 0;
    reading.on('data', (chunk: Buffer) => (read += chunk.length));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(streams.size).toBe(2);

    const event = `data: ${'x'.repeat(2_000)}\n\n`;
    for (let index = 0; index < 15_000; index++) {
      for (const { send } of streams.values()) send(event);
      if (index % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }

    const stalledStream = streams.get(stalled.localPort!)!;
    const readingStream = streams.get(reading.localPort!)!;
    expect(stalledStream.response.destroyed).toBe(true);
    expect(readingStream.response.destroyed).toBe(false);
    expect(readingStream.response.writableLength).toBeLessThanOrEqual(
      MAX_EVENT_STREAM_BUFFER_BYTES + event.length,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(read).toBeGreaterThan(25_000_000);
    stalled.destroy();
    reading.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});
