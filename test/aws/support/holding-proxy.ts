import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of the fake LINE that can hold requests to one path: they are
 * neither answered nor forwarded, as when a process dies before its request reaches LINE.
 */
export async function startHoldingProxy(target: string, heldPath: string) {
  const held: ServerResponse[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url?.split('?')[0] === heldPath) {
        held.push(response);
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(
          ([name]) => !['host', 'connection', 'content-length'].includes(name),
        ),
      ) as Record<string, string>;
      fetch(`${target}${request.url ?? '/'}`, {
        method: request.method ?? 'GET',
        headers,
        ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
      }).then(
        async (answer) => {
          const passed = [...answer.headers].filter(
            ([name]) =>
              !['content-encoding', 'transfer-encoding', 'content-length', 'connection'].includes(name),
          );
          response.writeHead(answer.status, Object.fromEntries(passed));
          response.end(Buffer.from(await answer.arrayBuffer()));
        },
        () => response.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Requests held so far. */
    held: () => held.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
