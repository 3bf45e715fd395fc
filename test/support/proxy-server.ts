import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// What the test proxies in front of DynamoDB Local share: listening, and passing a request on
// as it came.

/** Sends `incoming` (its method, path, headers and the body already read) on to `upstream`. */
export async function forward(upstream: string, incoming: IncomingMessage, body: Buffer) {
  const target = new URL(incoming.url ?? '/', upstream);
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = httpRequest(target, { method: incoming.method, headers: incoming.headers }, resolve);
    outgoing.once('error', reject);
    outgoing.end(body);
  });
  return {
    status: response.statusCode ?? 502,
    headers: response.headers,
    body: Buffer.concat(await collect(response)),
  };
}

/** The whole body of a request or a response. */
export async function collect(stream: IncomingMessage): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return chunks;
}

/**
 * A proxy server on a free loopback port: `handle` answers each request (a failure answers
 * 500); `serial` handles one request at a time, in arrival order. `close` also drops the SDK's
 * kept-alive sockets.
 */
export async function startProxyServer(
  handle: (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>,
  options: { readonly serial?: boolean } = {},
): Promise<{ endpoint: string; close: () => Promise<void> }> {
  let queue: Promise<unknown> = Promise.resolve();
  const server = createServer((incoming, outgoing) => {
    const handled = () =>
      handle(incoming, outgoing).catch((error: unknown) => {
        outgoing.writeHead(500, { 'content-type': 'text/plain' });
        outgoing.end(String(error));
      });
    if (options.serial) queue = queue.then(handled);
    else void handled();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Answers `outgoing` with what upstream answered. */
export function relay(outgoing: ServerResponse, response: Awaited<ReturnType<typeof forward>>): void {
  outgoing.writeHead(response.status, response.headers);
  outgoing.end(response.body);
}
