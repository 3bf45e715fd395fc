import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel, callReply } from '../../src/model/index.js';
import { startKaiwaWithFakeLine, textEvent } from '../support/kaiwa-under-test.js';
import { botUserId } from '../support/webhook-fixtures.js';

// A client that opens a connection and then sends its request slowly, or stops half-way
// (slowloris), holds a socket for as long as the server lets it: with Node.js's defaults, 60 s
// for the headers and 5 minutes for the whole request. kaiwa cuts it after
// `KAIWA_HTTP_REQUEST_TIMEOUT_MS` (docs/security.md, "The webhook edge").

let running: Awaited<ReturnType<typeof startKaiwaWithFakeLine>> | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await running?.close();
  running = undefined;
});

/** Opens a raw connection, writes `text`, and resolves with what the server answered once it closed. */
function stalledRequest(url: string, text: string): { closed: Promise<{ answer: string; afterMs: number }> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  const opened = Date.now();
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  socket.on('error', () => undefined);
  socket.write(text);
  return {
    closed: new Promise((resolve) =>
      socket.on('close', () => resolve({ answer, afterMs: Date.now() - opened })),
    ),
  };
}

describe('slow and stalled clients', () => {
  it(
    'cuts a connection that sends nothing, or whose headers or body stop coming, and still answers LINE',
    { timeout: 20_000 },
    async () => {
      running = await startKaiwaWithFakeLine({
        model: new ScriptedModel([callReply('hi')], { repeatLast: true }),
        env: { KAIWA_HTTP_REQUEST_TIMEOUT_MS: '1000' },
      });
      const url = running.kaiwa.url;
      const silent = stalledRequest(url, '');
      const halfHeaders = stalledRequest(url, 'POST /webhook HTTP/1.1\r\nHost: kaiwa\r\nContent-Ty');
      const halfBody = stalledRequest(
        url,
        'POST /webhook HTTP/1.1\r\nHost: kaiwa\r\nContent-Type: application/json\r\nX-Line-Signature: c2lnbmF0dXJl\r\nContent-Length: 200\r\n\r\n{"destination":',
      );

      // Meanwhile LINE's webhooks are answered as ever.
      const body = JSON.stringify({
        destination: botUserId,
        events: [textEvent(running.line, { type: 'user', userId: 'U' + '5'.repeat(32) }, 'hello')],
      });
      expect((await running.post(body)).status).toBe(200);

      const cuts = await Promise.all([silent.closed, halfHeaders.closed, halfBody.closed]);
      // Node.js answers 408 and closes; within the timeout and its once-a-second check.
      for (const cut of cuts) {
        expect(cut.answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(cut.afterMs).toBeLessThan(5_000);
      }
    },
  );
});
