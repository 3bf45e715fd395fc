import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the server answers one request. */
export type HostileBehaviour =
  /** Answers normally. */
  | { kind: 'serve'; status?: number; contentType: string; body: Buffer; headers?: Record<string, string> }
  /** Sends the headers and part of the body, then closes the socket (a crash, a restart). */
  | { kind: 'drop-mid-body'; contentType: string; declaredBytes: number; sentBytes: number }
  /** Sends the headers, then one byte every `intervalMs`, forever. */
  | { kind: 'drip'; contentType: string; intervalMs: number }
  /** Never answers. */
  | { kind: 'hang' }
  /** Answers `status` with a body that echoes the request: its headers and its body (a proxy doing so). */
  | { kind: 'echo'; status: number; marker: string };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/**
 * A local HTTP server that misbehaves on purpose — the content server or LINE API a black-box
 * security run points kaiwa at. `behaviour` decides per request; it counts requests open at once.
 */
export async function startHostileServer(behaviour: (request: RecordedRequest) => HostileBehaviour) {
  const requests: RecordedRequest[] = [];
  let open = 0;
  let peakOpen = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      open++;
      peakOpen = Math.max(peakOpen, open);
      response.on('close', () => open--);
      answer(behaviour(recorded), recorded, response);
    });
  });

  function answer(plan: HostileBehaviour, request: RecordedRequest, response: ServerResponse) {
    const requestId = `req-${requests.length}`;
    switch (plan.kind) {
      case 'serve':
        response.writeHead(plan.status ?? 200, {
          'content-type': plan.contentType,
          'content-length': String(plan.body.length),
          'x-line-request-id': requestId,
          ...plan.headers,
        });
        response.end(plan.body);
        return;
      case 'drop-mid-body':
        response.writeHead(200, {
          'content-type': plan.contentType,
          'content-length': String(plan.declaredBytes),
          'x-line-request-id': requestId,
        });
        response.write(Buffer.alloc(plan.sentBytes, 0xff), () => {
          // Let the bytes leave before the socket goes: the client is mid-body when it drops.
          const timer = setTimeout(() => response.socket?.destroy(), 50);
          timers.add(timer);
        });
        return;
      case 'drip': {
        response.writeHead(200, { 'content-type': plan.contentType, 'x-line-request-id': requestId });
        const timer = setInterval(() => response.write(Buffer.from([0xff])), plan.intervalMs);
        timers.add(timer);
        response.on('close', () => clearInterval(timer));
        return;
      }
      case 'hang':
        return;
      case 'echo':
        response.writeHead(plan.status, {
          'content-type': 'application/json',
          'x-line-request-id': requestId,
        });
        response.end(
          JSON.stringify({
            message: `${plan.marker}: echoing the request`,
            echo: request.headers,
            body: request.body,
          }),
        );
        return;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** The most requests this server had open at one time. */
    peakOpen: () => peakOpen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A tiny but real PNG (its signature and an IHDR), padded to `bytes` when asked. */
export function pngBytes(bytes = 64): Buffer {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, Buffer.alloc(Math.max(0, bytes - signature.length), 0x00)]);
}
